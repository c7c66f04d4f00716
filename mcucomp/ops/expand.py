"""Expand (numpy broadcasting to a constant shape), any dtype: a strided walk with stride 0 on broadcast dims."""

from __future__ import annotations

from ..ir import Graph, Node
from ._data import AxisWiseWalkCopy, walk, walk_fits
from .base import broadcast_strides, shape


def _walk(node: Node, g: Graph) -> tuple[list[int], list[int], int]:
    """Output dims and the input's broadcast strides."""
    out = shape(g, node.outputs[0])
    return walk(out, broadcast_strides(shape(g, node.inputs[0]), out))


def _walk_fits(node: Node, g: Graph) -> bool:
    """The expansion must need at most 12 dims once dims read contiguously are merged."""
    return walk_fits(_walk(node, g))


class Expand(AxisWiseWalkCopy):
    """Broadcast of a tensor of any dtype to the (static) output shape."""

    name = "expand"
    onnx_ops = ("Expand",)
    constraints = (_walk_fits,)
    walk_of = staticmethod(_walk)


OP = Expand()
