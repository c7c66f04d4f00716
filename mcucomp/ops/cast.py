"""Cast and CastLike between float32, float64, every integer type and bool."""

from __future__ import annotations

from ..ir import Graph, Node
from ._elementwise import dtype
from ._overlap import elementwise
from .base import DTYPE_CODES, KernelCall, KernelOp, OverlapMargin


class Cast(KernelOp):
    """Element-wise type conversion as numpy's astype for in-range values.

    Float to integer truncates toward zero; a value outside the target range (undefined in ONNX) wraps modulo
    2^width after saturating to the int64 range (uint64: to [0, 2^64 - 1]); NaN becomes 0. Float64 to float32 rounds
    to nearest and overflows to infinity; integers wrap; anything non-zero becomes true in bool.
    """

    name = "cast"
    onnx_ops = ("Cast", "CastLike")

    def lower(self, node: Node, g: Graph) -> None:
        """CastLike's target input only names the type, which the output already has: drop it."""
        node.inputs = node.inputs[:1]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_cast(params{from, to, count}, x, y)."""
        x, y = node.inputs[0], node.outputs[0]
        return KernelCall(self.name, [("from", DTYPE_CODES[dtype(g, x)]), ("to", DTYPE_CODES[dtype(g, y)]),
                                      ("count", g.tensors[y].size)], [x, y])

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads x[i], then writes y[i] (elementwise() refuses type pairs that may not alias)."""
        return elementwise(node, g)


OP = Cast()
