"""Float32 Tanh with mcu_math.h's mcu_tanhf."""

from __future__ import annotations

from ..ir import Graph, Node
from ._overlap import elementwise
from .base import OverlapMargin, UnaryF32Op


class TanhF32(UnaryF32Op):
    """Tanh on float32 tensors."""

    name = "tanh_f32"
    onnx_ops = ("Tanh",)

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads x[i], then writes y[i]."""
        return elementwise(node, g)


OP = TanhF32()
