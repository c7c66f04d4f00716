"""Shared by quantize_linear and dequantize_linear: the loop view and the scale/zero-point strides, the cost terms,
and constraints."""

from __future__ import annotations

from ..ir import Graph, Node
from ._cost import element_terms
from ._layout import same_image
from .base import numel, shape


def quant_view(node: Node, g: Graph) -> list[tuple[str, object]]:
    """Params outer/channels/inner/block and the scale/zero-point strides q_outer/q_channel/q_inner of input 0."""
    dims = shape(g, node.inputs[0])
    block = int(node.attrs.get("block_size", 0))
    if per_tensor(node, g):
        return [("outer", 1), ("channels", 1), ("inner", numel(dims)), ("block", 1),
                ("q_outer", 0), ("q_channel", 0), ("q_inner", 0)]
    axis = int(node.attrs.get("axis", 1)) % len(dims)
    outer, channels, inner = numel(dims[:axis]), dims[axis], numel(dims[axis + 1:])
    view = [("outer", outer), ("channels", channels), ("inner", inner)]
    if not block:
        return view + [("block", 1), ("q_outer", 0), ("q_channel", 1), ("q_inner", 0)]
    # blocked: scale has x's shape with ceil(channels / block) along the axis
    return view + [("block", block), ("q_outer", -(-channels // block) * inner), ("q_channel", inner), ("q_inner", 1)]


def per_tensor(node: Node, g: Graph) -> bool:
    """True for a per-tensor conversion: one scale, not blocked."""
    return not node.attrs.get("block_size", 0) and numel(shape(g, node.inputs[1])) == 1


def per_tensor_image(node: Node, g: Graph) -> bool:
    """True for a per-tensor conversion of an image: the flat loop runs in either layout."""
    return per_tensor(node, g) and same_image(node, g)


def conversion_terms(node: Node, g: Graph, integer: str) -> tuple[str, dict[str, int]]:
    """QuantizeLinear's and DequantizeLinear's cost terms, `integer` naming their 8/16/32-bit tensor:
    'per_tensor_8bit' (per tensor, int8 or uint8: the C's one flat loop) or 'default' (the per-element scale and
    zero-point lookup); one call and the elements in and out."""
    eight_bit = g.tensors[integer].dtype in ("int8", "uint8")
    return ("per_tensor_8bit" if per_tensor(node, g) and eight_bit else "default"), element_terms(node, g)


def zero_point_name(node: Node) -> str:
    """The zero-point input's name, '' when absent (the kernel gets NULL and uses zero)."""
    return node.inputs[2] if len(node.inputs) > 2 else ""


def scale_float32(node: Node, g: Graph) -> bool:
    """The scale (input 1) must be float32."""
    return g.tensors[node.inputs[1]].dtype == "float32"
