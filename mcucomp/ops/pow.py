"""Pow with a float32, int32 or int64 base and an exponent of any numeric type, with numpy broadcasting."""

from __future__ import annotations

from ..ir import Graph, Node
from ._elementwise import bcast_pair, broadcast_fits, dtype
from ._overlap import elementwise
from .base import DTYPE_CODES, KernelCall, KernelOp, OverlapMargin


def _base_dtype(node: Node, g: Graph) -> bool:
    """The base must be float32, int32 or int64 (the runtime has no double-precision pow)."""
    return dtype(g, node.inputs[0]) in ("float32", "int32", "int64")


class Pow(KernelOp):
    """x^e: float bases use mcu_powf (C99 powf semantics); integer bases raised to an integral exponent multiply
    exactly and wrap like numpy, a negative integral exponent gives 1/x^|e| truncated (0 for 0^-k), and a fractional
    exponent truncates powf's result (saturating)."""

    name = "pow"
    depends = ("cast",)
    onnx_ops = ("Pow",)
    constraints = (_base_dtype, broadcast_fits)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_pow(params{base_dtype, exp_dtype, count, bc}, x, e, y)."""
        x, e = node.inputs
        y = node.outputs[0]
        params = [("base_dtype", DTYPE_CODES[dtype(g, x)]), ("exp_dtype", DTYPE_CODES[dtype(g, e)]),
                  ("count", g.tensors[y].size), ("bc", bcast_pair(node, g, x, e))]
        return KernelCall(self.name, params, [x, e, y])

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads e and x[i] (an unbroadcast x walks the output's indices), then writes y[i]."""
        return elementwise(node, g)


OP = Pow()
