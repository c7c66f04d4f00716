"""Sliding windows over 1-D, 2-D and 3-D spatial data (conv, conv-transpose and pooling kernels).

After lowering, a window node's attrs hold the height/width part in the 2-D form that window_geom and
_overlap.window_margin read (kernel, strides, dilations as [h, w], pads as [top, left, bottom, right]; 1-D data has
H = 1) and the depth part of 3-D data as `depth` = [kernel, stride, dilation, pad_front, pad_back] ([1, 1, 1, 0, 0]
for 1-D and 2-D data). The C kernels take the height/width part as an mcu_conv_geom and the depth part as the
params fields d_in, d_out, k_d, stride_d, dil_d, pad_f (see depth_fields).
"""

from __future__ import annotations

from ..ir import Graph, Node
from .base import onnx_shape, shape

NO_DEPTH = [1, 1, 1, 0, 0]


def spatial_rank(node: Node, g: Graph) -> int:
    """Number of spatial dims of input 0 (NC + spatial)."""
    return len(shape(g, node.inputs[0])) - 2


def rank_1_to_3(node: Node, g: Graph) -> bool:
    """Only 1-D, 2-D and 3-D spatial data (input rank 3, 4 or 5) is supported."""
    return 1 <= spatial_rank(node, g) <= 3


def text_attr(value, default: str) -> str:
    """A string attribute (ONNX gives bytes) or its default."""
    if value is None:
        return default
    return value.decode() if isinstance(value, bytes) else str(value)


def auto_pads(node: Node, in_sizes: list[int], kernel: list[int], strides: list[int], dil: list[int]
              ) -> list[int] | None:
    """Explicit [begin..., end...] pads for auto_pad SAME_UPPER/SAME_LOWER/VALID; None for NOTSET (use `pads`)."""
    mode = text_attr(node.attrs.get("auto_pad"), "NOTSET")
    if mode in ("NOTSET", ""):
        return None
    if mode == "VALID":
        return [0] * (2 * len(in_sizes))
    begin, end = [], []
    for size, k, s, d in zip(in_sizes, kernel, strides, dil):
        total = max(0, (-(-size // s) - 1) * s + (k - 1) * d + 1 - size)
        small, big = total // 2, total - total // 2
        begin.append(small if mode == "SAME_UPPER" else big)
        end.append(big if mode == "SAME_UPPER" else small)
    return begin + end


def _to_3d(values: list[int], fill: int) -> list[int]:
    """A per-spatial-dim list for 1..3 dims, padded at the front to [d, h, w]."""
    return [fill] * (3 - len(values)) + list(values)


def set_window(node: Node, kernel: list[int], strides: list[int], dil: list[int], pads: list[int]) -> None:
    """Store an N-D window (N = len(kernel), pads as [begin..., end...]) in the canonical attrs."""
    rank = len(kernel)
    k, s, d = _to_3d(kernel, 1), _to_3d(strides, 1), _to_3d(dil, 1)
    begin, end = _to_3d(pads[:rank], 0), _to_3d(pads[rank:], 0)
    node.attrs.update(kernel=k[1:], strides=s[1:], dilations=d[1:], pads=[begin[1], begin[2], end[1], end[2]],
                      depth=[k[0], s[0], d[0], begin[0], end[0]])


def canonical_nd(node: Node, g: Graph, kernel: list[int]) -> None:
    """Canonical window attrs of a conv or pooling node from its ONNX attributes and the kernel's spatial size."""
    rank = len(kernel)
    strides = list(node.attrs.get("strides") or [1] * rank)
    dil = list(node.attrs.get("dilations") or [1] * rank)
    pads = auto_pads(node, list(shape(g, node.inputs[0])[2:]), kernel, strides, dil)
    set_window(node, kernel, strides, dil, pads if pads is not None else list(node.attrs.get("pads") or [0] * 2 * rank))


def canonical_hw(node: Node, g: Graph, kernel_hw: list[int]) -> None:
    """canonical_nd for 1-D or 2-D data with the kernel given as [h, w] (h = 1 for 1-D data)."""
    canonical_nd(node, g, list(kernel_hw[2 - spatial_rank(node, g):]))


def view5(dims) -> tuple[int, int, int, int, int]:
    """An N,C + 1..3 spatial dims shape as N, C, D, H, W."""
    dims = list(dims)
    n, c, spatial = dims[0], dims[1], _to_3d(dims[2:], 1)
    return n, c, spatial[0], spatial[1], spatial[2]


def is_3d(node: Node, g: Graph) -> bool:
    """True when input 0 has 3 spatial dims (the depth loop of the kernel is not trivial)."""
    return spatial_rank(node, g) == 3


def window_geom(node: Node, g: Graph, c_out: int | None = None, group: int = 1) -> list[tuple[str, object]]:
    """The mcu_conv_geom initializer (height/width part) for a node with canonical window attrs, any spatial rank;
    the sizes are the same whether the tensors are stored channels-first or channels-last."""
    n, c, _, h, w = view5(onnx_shape(g, node.inputs[0]))
    _, oc, _, oh, ow = view5(onnx_shape(g, node.outputs[0]))
    a = node.attrs
    return [
        ("n", n), ("c_in", c), ("h_in", h), ("w_in", w),
        ("c_out", oc if c_out is None else c_out), ("h_out", oh), ("w_out", ow),
        ("k_h", a["kernel"][0]), ("k_w", a["kernel"][1]),
        ("stride_h", a["strides"][0]), ("stride_w", a["strides"][1]),
        ("dil_h", a["dilations"][0]), ("dil_w", a["dilations"][1]),
        ("pad_t", a["pads"][0]), ("pad_l", a["pads"][1]), ("group", group),
    ]


def depth_fields(node: Node, g: Graph) -> list[tuple[str, object]]:
    """The params fields of the depth loop: d_in, d_out, k_d, stride_d, dil_d, pad_f (all 1 or 0 below 3-D)."""
    k, s, d, front, _ = node.attrs.get("depth", NO_DEPTH)
    return [("d_in", view5(onnx_shape(g, node.inputs[0]))[2]), ("d_out", view5(onnx_shape(g, node.outputs[0]))[2]),
            ("k_d", k), ("stride_d", s), ("dil_d", d), ("pad_f", front)]


def canonical_pool(node: Node, g: Graph) -> None:
    """Canonical window attrs of a pooling node; Global* pools use one window over the whole spatial extent."""
    if node.op.startswith("Global"):
        dims = list(shape(g, node.inputs[0])[2:])
        set_window(node, dims, [1] * len(dims), [1] * len(dims), [0] * (2 * len(dims)))
        return
    canonical_nd(node, g, list(node.attrs["kernel_shape"]))
