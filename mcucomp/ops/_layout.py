"""Channels-last (NHWC) helpers shared by the layout pass, the kernels that run either layout and the integer
reference: which tensors are images, and the permutations between ONNX order (N, C, spatial...) and stored order."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node

NHWC = "nhwc"


def is_image(dims) -> bool:
    """True for 3-D (N, C, W) and 4-D (N, C, H, W) shapes: the tensors the layout pass may store channels-last."""
    return len(dims) in (3, 4)


def to_nhwc_perm(rank: int) -> list[int]:
    """The Transpose perm from ONNX order to channels-last: (0, 2, ..., rank-1, 1)."""
    return [0, *range(2, rank), 1]


def to_nchw_perm(rank: int) -> list[int]:
    """The Transpose perm from channels-last back to ONNX order: (0, rank-1, 1, ..., rank-2)."""
    return [0, rank - 1, *range(1, rank - 1)]


def stored_axis(axis: int, rank: int) -> int:
    """Where ONNX-order axis `axis` of an image tensor lies once it is stored channels-last."""
    axis %= rank
    return 0 if axis == 0 else rank - 1 if axis == 1 else axis - 1


def is_nhwc(node: Node) -> bool:
    """True when the layout pass runs this node channels-last."""
    return node.attrs.get("layout") == NHWC


def as_onnx_order(x: np.ndarray, layout: str) -> np.ndarray:
    """An array stored in `layout` viewed in ONNX order (N, C, spatial...)."""
    return np.transpose(x, to_nchw_perm(x.ndim)) if layout == NHWC else x


def as_stored_order(x: np.ndarray, layout: str) -> np.ndarray:
    """An ONNX-order array rearranged into the stored `layout`."""
    return np.ascontiguousarray(np.transpose(x, to_nhwc_perm(x.ndim))) if layout == NHWC else x


def activations(node: Node, g: Graph) -> list[str]:
    """The node's runtime (non-constant) inputs and its outputs."""
    return [n for n in node.inputs if n and not g.tensors[n].is_const] + [o for o in node.outputs if o]


def same_image(node: Node, g: Graph) -> bool:
    """True when input 0 and output 0 are images of one shape (element-wise kernels that walk `count` elements
    in storage order, so either layout gives the same result)."""
    x, y = g.tensors[node.inputs[0]], g.tensors[node.outputs[0]]
    return not x.is_const and is_image(y.onnx_shape) and x.onnx_shape == y.onnx_shape


def all_images(node: Node, g: Graph) -> bool:
    """True when every runtime input and every output is an image of the output's rank."""
    rank = len(g.tensors[node.outputs[0]].onnx_shape)
    return is_image((0,) * rank) and all(len(g.tensors[n].onnx_shape) == rank for n in activations(node, g))


def stored_value(g: Graph, name: str, value: np.ndarray) -> np.ndarray:
    """An ONNX-order value of tensor `name` (onnxruntime's) in the order the lowered graph stores it: channels-last
    images rearranged, and a view (reshape) of a channels-last image, such as a Flatten into a matrix product whose
    weights the layout pass permuted, in the order of its channels-last source."""
    t = g.tensors.get(name)
    if t is None:
        return value
    if t.layout == NHWC:
        return as_stored_order(value, NHWC)
    node = g.producer(name)
    if node is not None and node.op == "reshape" and g.tensors[node.inputs[0]].layout == NHWC:
        src = g.tensors[node.inputs[0]]
        return as_stored_order(np.reshape(value, src.onnx_shape), NHWC).reshape(t.shape)
    return value
