"""Concat of any number of inputs along any axis, any dtype: each input copies its chunk into every outer row."""

from __future__ import annotations

from ..ir import Graph, Node
from ._cost import chunk_copy_terms
from ._data import elem_bytes, has_dims, int32_array
from ._layout import all_images, is_nhwc, stored_axis
from .base import KernelCall, KernelOp, numel, shape


class Concat(KernelOp):
    """Concat of tensors of one dtype."""

    name = "concat"
    onnx_ops = ("Concat",)
    constraints = (has_dims,)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_concat(params{outer, n_inputs, in_bytes[]}, {x0, x1, ...}, y)."""
        out = shape(g, node.outputs[0])
        axis = concat_axis(node, len(out))
        esize = elem_bytes(g, node.outputs[0])
        arrays: dict = {}
        in_bytes = int32_array(arrays, f"{node.name}_in_bytes", (numel(shape(g, x)[axis:]) * esize for x in node.inputs))
        params = [("outer", numel(out[:axis])), ("n_inputs", len(node.inputs)), ("in_bytes", in_bytes)]
        return KernelCall(self.name, params, [tuple(node.inputs), node.outputs[0]], arrays)

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per outer row one memcpy of every input's chunk."""
        return "default", chunk_copy_terms(self.call(node, g), "in_bytes")

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout for runtime images: channels-last moves the axis (concat_axis), the copy is the same."""
        return not any(g.tensors[i].is_const for i in node.inputs) and all_images(node, g)


def concat_axis(node: Node, rank: int) -> int:
    """The concatenation axis in the stored order of the tensors (ONNX's `axis` moved when channels-last)."""
    return stored_axis(node.attrs["axis"], rank) if is_nhwc(node) else node.attrs["axis"] % rank


OP = Concat()
