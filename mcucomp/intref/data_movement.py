"""Ops that move 8-bit codes without arithmetic: reshape-likes and copies, concat, transpose, 2-D max pooling."""

from __future__ import annotations

import numpy as np

from ..ops._layout import as_onnx_order, as_stored_order
from ..ops.concat import concat_axis
from ._arith import nchw, windows

OPS = ("reshape", "copy", "concat", "transpose", "maxpool_f32")


def reference(node, g, mode, *inputs) -> np.ndarray:
    """The same codes rearranged as the op says."""
    out_shape = g.tensors[node.outputs[0]].shape
    if node.op == "concat":
        return np.concatenate(inputs, axis=concat_axis(node, len(out_shape)))
    if node.op == "transpose":
        return np.ascontiguousarray(np.transpose(inputs[0], node.attrs.get("perm") or None))
    if node.op == "maxpool_f32":
        layout = g.tensors[node.outputs[0]].layout
        return as_stored_order(_maxpool(node, as_onnx_order(inputs[0], layout), g.tensors[node.outputs[0]].onnx_shape),
                               layout)
    return inputs[0].reshape(out_shape)


def _maxpool(node, x: np.ndarray, out_shape) -> np.ndarray:
    """The largest code of each window (taps in the pads never win)."""
    lo = np.iinfo(x.dtype).min if np.issubdtype(x.dtype, np.integer) else -np.inf
    oh, ow = nchw(np.empty(out_shape, np.int8)).shape[2:]
    taps = windows(nchw(x), node.attrs, (oh, ow), lo)
    return taps.max(axis=(2, 3)).reshape(out_shape)
