"""conv_transpose_s8: every input pixel times every kernel tap added at output i·stride - pad + k·dil, int32 sums of
(x - x_zp)(w - w_zp[oc]) per group, plus the bias, requantized per output channel."""

from __future__ import annotations

import numpy as np

from ..ops._layout import as_onnx_order, as_stored_order
from ._arith import nchw, requantize_rq

OPS = ("conv_transpose_s8",)


def reference(node, g, mode, x, w, bias=None) -> np.ndarray:
    """The transposed convolution of the lowered node (weights [c_in, c_out / group, k_h, k_w]), in its tensors'
    stored layout."""
    a = node.attrs
    layout = g.tensors[node.outputs[0]].layout
    x = as_onnx_order(x, g.tensors[node.inputs[0]].layout)
    out_shape = g.tensors[node.outputs[0]].onnx_shape
    x4 = nchw(x.astype(np.int64) - a["x_zp"])
    w4 = nchw(w.astype(np.int64))
    n, c_in, h_in, w_in = x4.shape
    _, oc, oh, ow = nchw(np.empty(out_shape, np.int8)).shape
    group = a.get("group", 1)
    cout_g = oc // group
    if a.get("w_zp") is not None:
        zp = np.asarray(a["w_zp"], np.int64).reshape(group, cout_g)
        w4 = w4 - np.repeat(zp, c_in // group, axis=0).reshape(c_in, cout_g, 1, 1)
    (kh, kw), (sh, sw), (dh, dw) = a["kernel"], a["strides"], a["dilations"]
    pt, pl = a["pads"][0], a["pads"][1]
    # full output plane (before cropping by the pads): position i*s + k*d
    full = np.zeros((n, oc, (h_in - 1) * sh + (kh - 1) * dh + 1, (w_in - 1) * sw + (kw - 1) * dw + 1), np.int64)
    xg = x4.reshape(n, group, c_in // group, h_in, w_in)
    wg = w4.reshape(group, c_in // group, cout_g, kh, kw)
    for ky in range(kh):
        for kx in range(kw):
            taps = np.einsum("ngchw,gco->ngohw", xg, wg[:, :, :, ky, kx]).reshape(n, oc, h_in, w_in)
            full[:, :, ky * dh:ky * dh + (h_in - 1) * sh + 1:sh, kx * dw:kx * dw + (w_in - 1) * sw + 1:sw] += taps
    acc = np.zeros((n, oc, oh, ow), np.int64)
    ys, xs = np.arange(oh) + pt, np.arange(ow) + pl
    inside_y = (ys >= 0) & (ys < full.shape[2])
    inside_x = (xs >= 0) & (xs < full.shape[3])
    acc[:, :, np.flatnonzero(inside_y)[:, None], np.flatnonzero(inside_x)[None, :]] = \
        full[:, :, ys[inside_y][:, None], xs[inside_x][None, :]]
    if bias is not None:
        acc = acc + bias.astype(np.int64).reshape(1, -1, 1, 1)
    return as_stored_order(requantize_rq(acc, mode, a["rq"]).reshape(out_shape), layout)
