"""Equal, Greater, GreaterOrEqual, Less and LessOrEqual of any numeric or bool dtype, with a bool output."""

from __future__ import annotations

from ..ir import Graph, Node
from ._elementwise import bcast_pair, broadcast_fits, dtype
from ._overlap import elementwise
from .base import DTYPE_CODES, KernelCall, KernelOp, OverlapMargin

# Bit mask of the outcomes that give true: 1 = a < b, 2 = a == b, 4 = a > b (runtime_c/kernels/compare.h)
MASKS = {"Less": 1, "Equal": 2, "LessOrEqual": 3, "Greater": 4, "GreaterOrEqual": 6}


class Compare(KernelOp):
    """Element-wise comparison with numpy broadcasting; a NaN operand compares false (IEEE)."""

    name = "compare"
    onnx_ops = tuple(MASKS)
    constraints = (broadcast_fits,)

    def lower(self, node: Node, g: Graph) -> None:
        """Store the outcome mask of the ONNX op."""
        node.attrs["mask"] = MASKS[node.op]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_compare(params{mask, dtype, count, bc}, a, b, y)."""
        a, b = node.inputs
        y = node.outputs[0]
        return KernelCall(self.name, [("mask", node.attrs["mask"]), ("dtype", DTYPE_CODES[dtype(g, a)]),
                                      ("count", g.tensors[y].size), ("bc", bcast_pair(node, g, a, b))], [a, b, y])

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads a[i] (an unbroadcast a walks the output's indices) and b, then writes y[i]."""
        return elementwise(node, g)


OP = Compare()
