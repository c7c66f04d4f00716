"""Split along any axis into any number of outputs (split input or attribute, num_outputs, uneven last chunk)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._cost import chunk_copy_terms
from ._data import elem_bytes, has_dims, int32_array
from ._layout import all_images, is_nhwc, stored_axis
from .base import KernelCall, KernelOp, numel, shape


class Split(KernelOp):
    """Split of a tensor of any dtype; the chunk sizes come from the static output shapes."""

    name = "split"
    onnx_ops = ("Split",)
    constraints = (has_dims,)

    def lower(self, node: Node, g: Graph) -> None:
        """Drop the split input: the output shapes already give the chunks."""
        node.inputs = node.inputs[:1]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_split(params{outer, n_outputs, out_bytes[]}, x, {y0, y1, ...})."""
        dims = shape(g, node.inputs[0])
        axis = split_axis(node, len(dims))
        esize = elem_bytes(g, node.inputs[0])
        arrays: dict = {}
        out_bytes = int32_array(arrays, f"{node.name}_out_bytes",
                                (numel(shape(g, y)[axis:]) * esize for y in node.outputs))
        params = [("outer", numel(dims[:axis])), ("n_outputs", len(node.outputs)), ("out_bytes", out_bytes)]
        return KernelCall(self.name, params, [node.inputs[0], tuple(node.outputs)], arrays)

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per outer row one memcpy into every output's chunk."""
        return "default", chunk_copy_terms(self.call(node, g), "out_bytes")

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout for images: channels-last moves the axis (split_axis); a split along C then copies C_i
        bytes per pixel, along a spatial axis whole rows."""
        return all_images(node, g)


def split_axis(node: Node, rank: int) -> int:
    """The split axis in the stored order of the tensors (ONNX's `axis` moved when channels-last)."""
    axis = node.attrs.get("axis", 0)
    return stored_axis(axis, rank) if is_nhwc(node) else axis % rank


OP = Split()
