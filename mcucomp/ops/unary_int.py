"""Integer and bool element-wise functions: Abs, Neg, Sign and Relu on every integer type, Not on bool."""

from __future__ import annotations

from ..ir import Graph, Node
from ._overlap import elementwise
from .base import DTYPE_CODES, KernelCall, KernelOp, OverlapMargin

#: ONNX op → MCU_UNARY_INT_* code in runtime_c/kernels/unary_int.h.
CODES = {"Abs": 0, "Neg": 1, "Sign": 2, "Relu": 3, "Not": 4}
_INTS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


def _integer_or_bool(node: Node, g: Graph) -> bool:
    """Input and output must share one integer type (int8 ... uint64); Not takes bool."""
    dtype = g.tensors[node.inputs[0]].dtype
    allowed = ("bool",) if node.op == "Not" else _INTS
    return dtype in allowed and g.tensors[node.outputs[0]].dtype == dtype


class UnaryInt(KernelOp):
    """Integer Abs/Neg/Sign/Relu with wrapping two's-complement results (Abs and Neg of the minimum give the
    minimum, as onnxruntime), and bool Not."""

    name = "unary_int"
    onnx_ops = tuple(CODES)
    constraints = (_integer_or_bool,)

    def lower(self, node: Node, g: Graph) -> None:
        """Keep the ONNX op as the op code."""
        node.attrs["op_code"] = CODES[node.op]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_unary_int(params{op, dtype, count}, x, y)."""
        t = g.tensors[node.outputs[0]]
        return KernelCall(self.name, [("op", node.attrs["op_code"]), ("dtype", DTYPE_CODES[t.dtype]),
                                      ("count", t.size)], [node.inputs[0], node.outputs[0]])

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads x[i], then writes y[i]."""
        return elementwise(node, g)


OP = UnaryInt()
