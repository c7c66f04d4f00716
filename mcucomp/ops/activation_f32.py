"""Float32 exponential-family functions and activations: Exp, Log, Erf, Elu, Celu, Selu, Softplus, Mish, Swish and
Gelu (exact and tanh approximation), with mcu_math.h's functions."""

from __future__ import annotations

from ..ir import Graph, Node
from ._unary import CodedUnaryOp, attr_str
from .base import all_float32

_NONE = ((None, 0.0), (None, 0.0))
_ALPHA_1 = (("alpha", 1.0), (None, 0.0))
#: Op key → (MCU_ACT_* code in runtime_c/kernels/activation_f32.h, (alpha, gamma) attributes with ONNX defaults).
CODES = {
    "Exp": (0, _NONE), "Log": (1, _NONE), "Erf": (2, _NONE), "Elu": (3, _ALPHA_1), "Celu": (4, _ALPHA_1),
    "Selu": (5, (("alpha", 1.67326319217681884765625), ("gamma", 1.05070102214813232421875))),
    "Softplus": (6, _NONE), "Mish": (7, _NONE), "Swish": (8, _ALPHA_1), "Gelu": (9, _NONE), "Gelu:tanh": (10, _NONE),
}


def _gelu_approximation_known(node: Node, g: Graph) -> bool:
    """Gelu's `approximate` attribute must be "none" or "tanh"."""
    return node.op != "Gelu" or attr_str(node, "approximate", "none") in ("none", "tanh")


class ActivationF32(CodedUnaryOp):
    """Element-wise float32 functions built on e^x, ln x and erf x (each rounded once from double)."""

    name = "activation_f32"
    onnx_ops = tuple(k for k in CODES if ":" not in k)
    codes = CODES
    param_names = ("alpha", "gamma")
    constraints = (all_float32, _gelu_approximation_known)

    def op_key(self, node: Node) -> str:
        """Gelu with approximate="tanh" is its own op code."""
        return "Gelu:tanh" if node.op == "Gelu" and attr_str(node, "approximate", "none") == "tanh" else node.op


OP = ActivationF32()
