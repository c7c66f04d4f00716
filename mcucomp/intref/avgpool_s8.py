"""avgpool_s8: a whole-window integer sum with one requantization ('global_int'), or the float32 path."""

from __future__ import annotations

import numpy as np

from ..ops._layout import as_onnx_order, as_stored_order
from ..ops.avgpool_s8 import count_scales
from ._arith import F32, nchw, quantize_float, requantize, windows

OPS = ("avgpool_s8",)


def _padded_taps(shape: tuple[int, ...], attrs: dict, out_hw: tuple[int, int]) -> np.ndarray:
    """Per output, how many window taps fall inside the padded input (fewer than the kernel past the pads)."""
    pt, pl, pb, pr = attrs["pads"]
    inside = np.ones((1, 1, shape[2] + pt + pb, shape[3] + pl + pr), np.int64)
    taps = windows(inside, {**attrs, "pads": [0, 0, 0, 0]}, out_hw, 0)
    return np.broadcast_to(taps.sum(axis=(2, 3)), shape[:2] + tuple(out_hw))


def reference(node, g, mode, x) -> np.ndarray:
    """The pool on the ONNX-order view of x, stored back in the output's layout (see _pool)."""
    layout = g.tensors[node.outputs[0]].layout
    return as_stored_order(_pool(node, g.tensors[node.outputs[0]].onnx_shape, mode, as_onnx_order(x, layout)), layout)


def _pool(node, out_shape, mode, x) -> np.ndarray:
    """Whole-window integer sum with one requantization by x_scale / (y_scale · window) ('global_int'); any
    window's integer sum requantized by x_scale / (y_scale · count) ('window_int', count_scales); or the float path:
    sum of (q - x_zp)·x_scale in window order, / count, / y_scale, quantized. count is the taps inside the input
    ('valid'), the kernel size ('kernel') or the taps inside the padded input ('padded')."""
    a = node.attrs
    oh, ow = nchw(np.empty(out_shape, np.int8)).shape[2:]
    kh, kw = a["kernel"]
    q = nchw(x.astype(np.int64) - a["x_zp"])
    if a["mode"] == "global_int":
        isum = q.sum(axis=(2, 3), keepdims=True)
        return requantize(isum, mode, count_scales(a)[0], a["y_zp"], a["qmin"], a["qmax"]).reshape(out_shape)
    with np.errstate(over="ignore"):  # a scale near the largest float32 gives infinities, as in the C
        taps = windows(q.astype(F32) * F32(a["x_scale"]), a, (oh, ow), np.nan)
    valid = ~np.isnan(taps)
    count = {"valid": lambda: valid.sum(axis=(2, 3)), "kernel": lambda: np.full(q.shape[:2] + (oh, ow), kh * kw),
             "padded": lambda: _padded_taps(q.shape, a, (oh, ow))}[a.get("count", "valid")]()
    if a["mode"] == "window_int":
        isum = windows(q, a, (oh, ow), 0).sum(axis=(2, 3))
        out = np.empty(isum.shape, np.int64)
        for k, scale in enumerate(count_scales(a)):
            at = count == k
            out[at] = requantize(isum[at], mode, scale, a["y_zp"], a["qmin"], a["qmax"])
        return out.reshape(out_shape)
    fsum = np.zeros(q.shape[:2] + (oh, ow), F32)
    for ky in range(kh):
        for kx in range(kw):
            fsum = np.where(valid[:, :, ky, kx], fsum + taps[:, :, ky, kx], fsum)
    v = (fsum / count.astype(F32)) / F32(a["y_scale"])
    return quantize_float(v, a["y_zp"], a["qmin"], a["qmax"]).reshape(out_shape)
