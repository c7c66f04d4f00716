"""Where(condition, X, Y) of any dtype with three-way numpy broadcasting."""

from __future__ import annotations

from ..ir import DTYPE_BYTES, Graph, Node
from ._elementwise import broadcast_fits, dtype, walk
from ._overlap import elementwise
from .base import KernelCall, KernelOp, OverlapMargin, bcast_struct


class Where(KernelOp):
    """Element selection by a bool condition; moves the bytes of any dtype without interpreting them."""

    name = "where"
    onnx_ops = ("Where",)
    constraints = (broadcast_fits,)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_where(params{elem_size, count, xy, cond}, c, x, y, out): xy walks X and Y, cond the condition."""
        c, x, y = node.inputs
        out = node.outputs[0]
        dims, (c_st, x_st, y_st) = walk(node, g, [c, x, y])
        return KernelCall(self.name, [("elem_size", DTYPE_BYTES[dtype(g, out)]), ("count", g.tensors[out].size),
                                      ("xy", bcast_struct(dims, x_st, y_st)),
                                      ("cond", bcast_struct(dims, c_st, [0] * len(dims)))], [c, x, y, out])

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place over the condition: the loop reads c[i] (when not broadcast) and X or Y, then writes out[i]."""
        return elementwise(node, g)


OP = Where()
