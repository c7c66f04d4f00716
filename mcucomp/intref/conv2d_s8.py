"""conv2d_s8: int32 sum of (x - x_zp)(w - w_zp[oc]) over each window (padding contributes 0), + bias, requantized."""

from __future__ import annotations

import numpy as np

from ..ops._layout import as_onnx_order, as_stored_order
from ._arith import nchw, requantize_rq, windows

OPS = ("conv2d_s8",)


def reference(node, g, mode, x, w, bias=None) -> np.ndarray:
    """The convolution of the lowered node (groups, strides, dilations, pads), in its tensors' stored layout."""
    a = node.attrs
    layout = g.tensors[node.outputs[0]].layout
    x = as_onnx_order(x, g.tensors[node.inputs[0]].layout)
    out_shape = g.tensors[node.outputs[0]].onnx_shape
    x4 = nchw(x.astype(np.int64) - a["x_zp"])
    w4 = nchw(w.astype(np.int64)) if w.ndim == 3 else w.astype(np.int64)
    if a.get("w_zp") is not None:
        w4 = w4 - np.asarray(a["w_zp"], np.int64).reshape(-1, 1, 1, 1)
    n, oc, oh, ow = nchw(np.empty(out_shape, np.int8)).shape
    group = a.get("group", 1)
    taps = windows(x4, a, (oh, ow), 0)
    taps = taps.reshape(n, group, x4.shape[1] // group, *taps.shape[2:])
    wg = w4.reshape(group, oc // group, *w4.shape[1:])
    acc = np.einsum("ngcyxhw,gocyx->ngohw", taps, wg).reshape(n, oc, oh, ow)
    if bias is not None:
        acc = acc + bias.astype(np.int64).reshape(1, -1, 1, 1)
    y = requantize_rq(acc, mode, a["rq"]).reshape(out_shape)
    return as_stored_order(y, layout)
