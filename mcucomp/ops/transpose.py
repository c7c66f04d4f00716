"""Transpose with any perm, any dtype: the output is written in order while the input is walked by strides.

The C kernel is the strided view copy shared by Slice, Expand, Tile, DepthToSpace and SpaceToDepth (_data.walk).
"""

from __future__ import annotations

from ..ir import Graph, Node
from ._data import permuted_walk, walk_fits, walk_params
from ._cost import params_dict, walk_terms
from ._overlap import byte_transpose_2d
from .base import KernelCall, KernelOp, OverlapMargin, shape


def _walk(node: Node, g: Graph) -> tuple[list[int], list[int], int]:
    """The walk of the permutation (default: reverse the dims)."""
    in_dims = shape(g, node.inputs[0])
    perm = node.attrs.get("perm") or list(range(len(in_dims)))[::-1]
    return permuted_walk(in_dims, perm)


def _perm_matches(node: Node, g: Graph) -> bool:
    """Transpose's perm must name every dim of the input once (the input's rank must be known)."""
    perm = node.attrs.get("perm")
    return perm is None or sorted(perm) == list(range(len(shape(g, node.inputs[0]))))


def _rank_fits(node: Node, g: Graph) -> bool:
    """The permutation must need at most 12 dims once dims that stay adjacent are merged."""
    return not _perm_matches(node, g) or walk_fits(_walk(node, g))


class Transpose(KernelOp):
    """Transpose of a tensor of any dtype."""

    name = "transpose"
    onnx_ops = ("Transpose",)
    constraints = (_perm_matches, _rank_fits)
    cost_paths = ("rows_copy", "elements", "bytes", "bytes_2d", "rgb_2d", "rgb_words_2d")

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_transpose(params{count, elem_bytes, offset, rank, dims, strides}, x, y)."""
        return KernelCall(self.name, walk_params(node, g, _walk(node, g)), [node.inputs[0], node.outputs[0]])

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """The 2-D byte walk of a layout conversion writes ascending after its reads (_overlap.byte_transpose_2d): an
        RGB image's channels-last copy may start below its planes, overlapping them."""
        return byte_transpose_2d(params_dict(self.call(node, g)), g.tensors[node.inputs[0]].nbytes)

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """The walk's path and loop counts (_cost.walk_terms)."""
        return walk_terms(params_dict(self.call(node, g)))


OP = Transpose()
