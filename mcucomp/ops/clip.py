"""Clip of any numeric dtype with optional min and max inputs that may be runtime tensors."""

from __future__ import annotations

from ..ir import Graph, Node
from ._elementwise import dtype
from ._overlap import elementwise
from ._layout import same_image
from .base import DTYPE_CODES, KernelCall, KernelOp, OverlapMargin


def _bound(node: Node, index: int) -> str | None:
    """The name of Clip's optional input `index`, or None when absent or empty."""
    return node.inputs[index] if len(node.inputs) > index and node.inputs[index] else None


def _scalar_bounds(node: Node, g: Graph) -> bool:
    """min and max must hold one element each."""
    return all(g.tensors[b].size == 1 for b in (_bound(node, 1), _bound(node, 2)) if b)


class Clip(KernelOp):
    """y = min(max(x, min), max); a missing bound is the type's lowest or highest value (floats: +-FLT_MAX, as in
    onnxruntime), min > max gives max, NaN stays NaN."""

    name = "clip"
    onnx_ops = ("Clip",)
    constraints = (_scalar_bounds,)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_clip(params{dtype, count}, x, lo or NULL, hi or NULL, y)."""
        y = node.outputs[0]
        return KernelCall(self.name, [("dtype", DTYPE_CODES[dtype(g, y)]), ("count", g.tensors[y].size)],
                          [node.inputs[0], _bound(node, 1), _bound(node, 2), y])

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout: the loop walks `count` elements in storage order."""
        return same_image(node, g)

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads x[i], then writes y[i]."""
        return elementwise(node, g)


OP = Clip()
