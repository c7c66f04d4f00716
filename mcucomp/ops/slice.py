"""Slice with constant starts, ends, axes and steps (negative, clamped, reversed), any dtype: a strided walk."""

from __future__ import annotations

from ..ir import Graph, Node
from ._data import WalkCopy, const_ints, has_dims, operand, operands_constant, walk, walk_fits
from ._layout import all_images, is_nhwc, to_nhwc_perm
from .base import contiguous_strides, shape


def _first_and_step(node: Node, g: Graph) -> tuple[list[int], list[int]]:
    """Per axis (ONNX order) of input 0: the first index read and the step."""
    dims = shape(g, node.inputs[0])
    starts, ends = const_ints(g, node.inputs[1]), const_ints(g, node.inputs[2])
    axes = const_ints(g, operand(node, 3)) or list(range(len(starts)))
    steps = const_ints(g, operand(node, 4)) or [1] * len(starts)
    first, step = [0] * len(dims), [1] * len(dims)
    for start, end, axis, st in zip(starts, ends, axes, steps):
        axis %= len(dims)
        # Python's slice clamping is ONNX's: starts and ends clamp to [0, dim] (to [-1, dim-1] when step < 0)
        first[axis], _, step[axis] = slice(start, end, st).indices(dims[axis])
    return first, step


def _stepped_walk(in_dims, out_dims, first: list[int], step: list[int]) -> tuple[list[int], list[int], int]:
    """The walk writing out_dims in order, reading from `first` with `step` per axis of a contiguous input."""
    in_strides = contiguous_strides(in_dims)
    offset = sum(f * s for f, s in zip(first, in_strides))
    return walk(out_dims, [st * s for st, s in zip(step, in_strides)], offset)


def _walk(node: Node, g: Graph) -> tuple[list[int], list[int], int]:
    """Output dims, input strides scaled by the steps, and the offset of the first element read."""
    return _stepped_walk(shape(g, node.inputs[0]), shape(g, node.outputs[0]), *_first_and_step(node, g))


def _operands_constant(node: Node, g: Graph) -> bool:
    """Slice's starts, ends, axes and steps must be constants (bind graph inputs with --const)."""
    return operands_constant(node, g, (1, 2, 3, 4))


def _walk_fits(node: Node, g: Graph) -> bool:
    """The slice must need at most 12 dims once dims read contiguously are merged."""
    return not (has_dims(node, g) and _operands_constant(node, g)) or walk_fits(_walk(node, g))


class Slice(WalkCopy):
    """Slice of a tensor of any dtype (mcu_transpose walks the input from the first element with stepped strides)."""

    name = "slice"
    onnx_ops = ("Slice",)
    constraints = (has_dims, _operands_constant, _walk_fits)
    walk_of = staticmethod(_walk)

    def lower(self, node: Node, g: Graph) -> None:
        """The walk, and the per-axis first index and step (for a channels-last walk, see stored_walk)."""
        node.attrs["first_step"] = _first_and_step(node, g)
        super().lower(node, g)

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout for images: the walk is rebuilt over the stored axis order."""
        return all_images(node, g)

    def stored_walk(self, node: Node, g: Graph) -> tuple[list[int], list[int], int]:
        """The walk over the tensors as stored: the lowered one, or channels-last the first indices and steps
        permuted into the stored axis order."""
        if not is_nhwc(node):
            return node.attrs["walk"]
        perm = to_nhwc_perm(len(shape(g, node.inputs[0])))
        first, step = node.attrs["first_step"]
        return _stepped_walk(shape(g, node.inputs[0]), shape(g, node.outputs[0]), [first[a] for a in perm],
                             [step[a] for a in perm])


OP = Slice()
