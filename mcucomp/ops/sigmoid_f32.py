"""Float32 Sigmoid with mcu_math.h's mcu_sigmoidf."""

from __future__ import annotations

from ..ir import Graph, Node
from ._overlap import elementwise
from .base import OverlapMargin, UnaryF32Op


class SigmoidF32(UnaryF32Op):
    """Sigmoid on float32 tensors."""

    name = "sigmoid_f32"
    onnx_ops = ("Sigmoid",)

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads x[i], then writes y[i]."""
        return elementwise(node, g)


OP = SigmoidF32()
