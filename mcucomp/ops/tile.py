"""Tile, any dtype: each dim d of extent n repeated r times is walked as two levels, (r, stride 0) and (n, stride)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._data import AxisWiseWalkCopy, walk, walk_fits
from .base import contiguous_strides, shape


def _walk(node: Node, g: Graph) -> tuple[list[int], list[int], int]:
    """Two levels per dim: the repeats (stride 0), then the input dim."""
    in_dims, out_dims = shape(g, node.inputs[0]), shape(g, node.outputs[0])
    dims, strides = [], []
    for n, out, s in zip(in_dims, out_dims, contiguous_strides(in_dims)):
        dims += [out // n, n]
        strides += [0, s]
    return walk(dims, strides)


def _walk_fits(node: Node, g: Graph) -> bool:
    """Tile must need at most 12 loop levels (two per repeated dim, fewer where dims merge)."""
    return walk_fits(_walk(node, g))


class Tile(AxisWiseWalkCopy):
    """Repetition of a tensor of any dtype along every dim (the static output shape gives the repeats)."""

    name = "tile"
    onnx_ops = ("Tile",)
    constraints = (_walk_fits,)
    walk_of = staticmethod(_walk)


OP = Tile()
