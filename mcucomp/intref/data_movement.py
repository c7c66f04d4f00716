"""Ops that move 8-bit codes without arithmetic: reshape-likes and copies, concat, split, transpose, 2-D max pooling,
the strided walks (slice, expand, tile, depth_to_space: the ONNX-order walk in attrs["walk"] on the ONNX-order view,
whatever layout the kernel runs in), pad and gather (evaluated by onnx's reference implementation of the ONNX op the
kernel runs)."""

from __future__ import annotations

import numpy as np

from ..ops._layout import as_onnx_order, as_stored_order
from ..ops.concat import concat_axis
from ..ops.split import split_axis
from ._arith import nchw, windows

#: Kernels that run one ONNX op unchanged (inputs and attributes as ONNX defines them).
ONNX_OP = {"pad": "Pad", "gather": "Gather"}
#: Kernels that copy input 0 along the strided walk in attrs["walk"] (mcucomp.ops._data.WalkCopy).
WALKS = ("slice", "expand", "tile", "depth_to_space")
OPS = ("reshape", "copy", "concat", "split", "transpose", "maxpool_f32", *ONNX_OP, *WALKS)


def reference(node, g, mode, *inputs) -> np.ndarray | tuple[np.ndarray, ...]:
    """The same codes rearranged as the op says (split: one array per output)."""
    out_shape = g.tensors[node.outputs[0]].shape
    if node.op in ONNX_OP:  # on the ONNX-order view of the data, stored back in the output's layout
        data = as_onnx_order(inputs[0], g.tensors[node.inputs[0]].layout)
        out = _onnx_reference(node, (data, *inputs[1:]))
        return as_stored_order(out, g.tensors[node.outputs[0]].layout)
    if node.op in WALKS:
        dims, strides, offset = node.attrs["walk"]
        at = offset + sum(i * s for i, s in zip(np.indices(dims), strides)) if dims else np.array(offset)
        data = as_onnx_order(inputs[0], g.tensors[node.inputs[0]].layout).reshape(-1)
        out = g.tensors[node.outputs[0]]
        return as_stored_order(data[at].reshape(out.onnx_shape), out.layout)
    if node.op == "concat":
        return np.concatenate(inputs, axis=concat_axis(node, len(out_shape)))
    if node.op == "split":
        axis = split_axis(node, len(out_shape))
        bounds = np.cumsum([g.tensors[y].shape[axis] for y in node.outputs])[:-1]
        return tuple(np.split(inputs[0], bounds, axis=axis))
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


def _onnx_reference(node, inputs) -> np.ndarray:
    """The node's ONNX op evaluated by onnx.reference on the codes (its ONNX attributes only)."""
    from onnx import defs, helper
    from onnx.reference import ReferenceEvaluator

    op = ONNX_OP[node.op]
    attrs = {k: v for k, v in node.attrs.items() if k in defs.get_schema(op).attributes}
    names = [f"in{i}" if value is not None else "" for i, value in enumerate(inputs)]
    proto = helper.make_node(op, names, ["out"], **attrs)
    feeds = {name: np.asarray(value) for name, value in zip(names, inputs) if name}
    return ReferenceEvaluator(proto).run(None, feeds)[0]
