"""DepthToSpace and SpaceToDepth (DCR and CRD modes), any dtype: a 6-D transpose of a reshaped view, in either
layout (channels-last, each pixel's channel block is one contiguous run of the output)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._data import WalkCopy, permuted_walk
from ._layout import all_images, is_nhwc
from .base import shape


def _mode(node: Node) -> str:
    """The mode attribute as text (DCR by default)."""
    mode = node.attrs.get("mode", "DCR")
    return mode.decode() if isinstance(mode, bytes) else mode


def _view_and_perm(node: Node, g: Graph) -> tuple[list[int], list[int]]:
    """The 6-D view of the NCHW input and the perm that rearranges it, as in the ONNX specification."""
    n, c, h, w = shape(g, node.inputs[0])
    bs = int(node.attrs["blocksize"])
    crd = _mode(node) == "CRD"
    if node.attrs["onnx_op"] == "SpaceToDepth":
        return [n, c, h // bs, bs, w // bs, bs], [0, 1, 3, 5, 2, 4] if crd else [0, 3, 5, 1, 2, 4]
    if crd:
        return [n, c // (bs * bs), bs, bs, h, w], [0, 1, 4, 2, 5, 3]
    return [n, bs, bs, c // (bs * bs), h, w], [0, 3, 4, 1, 5, 2]


def _nhwc_view_and_perm(node: Node, g: Graph) -> tuple[list[int], list[int]]:
    """The same rearrangement of the channels-last input (N, H, W, C): the channel index splits into (block row,
    block column, channel) for DCR and (channel, block row, block column) for CRD, as in _view_and_perm."""
    n, h, w, c = shape(g, node.inputs[0])
    bs = int(node.attrs["blocksize"])
    crd = _mode(node) == "CRD"
    if node.attrs["onnx_op"] == "SpaceToDepth":  # view (n, h', i, w', j, c) → (n, h', w', C' = (i, j, c) | (c, i, j))
        return [n, h // bs, bs, w // bs, bs, c], [0, 1, 3, 5, 2, 4] if crd else [0, 1, 3, 2, 4, 5]
    if crd:  # view (n, h, w, c', i, j) → (n, h, i, w, j, c')
        return [n, h, w, c // (bs * bs), bs, bs], [0, 1, 4, 2, 5, 3]
    return [n, h, w, bs, bs, c // (bs * bs)], [0, 1, 3, 2, 4, 5]  # view (n, h, w, i, j, c') → (n, h, i, w, j, c')


def _walk(node: Node, g: Graph) -> tuple[list[int], list[int], int]:
    """The walk of the 6-D transpose (it depends on the ONNX op and mode)."""
    return permuted_walk(*_view_and_perm(node, g))


def _rank_4(node: Node, g: Graph) -> bool:
    """DepthToSpace and SpaceToDepth take 4-D NCHW tensors."""
    return len(shape(g, node.inputs[0])) == 4


def _mode_known(node: Node, g: Graph) -> bool:
    """The mode must be DCR or CRD."""
    return _mode(node) in ("DCR", "CRD")


class DepthToSpace(WalkCopy):
    """Block rearrangement between depth and space of a tensor of any dtype."""

    name = "depth_to_space"
    onnx_ops = ("DepthToSpace", "SpaceToDepth")
    constraints = (_rank_4, _mode_known)
    walk_of = staticmethod(_walk)

    def lower(self, node: Node, g: Graph) -> None:
        """Keep the ONNX op (the two directions share this kernel), then the walk."""
        node.attrs["onnx_op"] = node.op
        super().lower(node, g)

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout for a runtime image input (constants keep ONNX order)."""
        return not g.tensors[node.inputs[0]].is_const and all_images(node, g)

    def stored_walk(self, node: Node, g: Graph) -> tuple[list[int], list[int], int]:
        """The lowered walk, or channels-last the walk of the channels-last view."""
        return permuted_walk(*_nhwc_view_and_perm(node, g)) if is_nhwc(node) else node.attrs["walk"]


OP = DepthToSpace()
