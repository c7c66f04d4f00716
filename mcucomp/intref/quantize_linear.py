"""Standalone QuantizeLinear and DequantizeLinear at the float boundaries of an int8 model (per tensor or per axis):
x / scale (a true float32 division), clamp, round half to even, + zp; and (q - zp) · scale in float32."""

from __future__ import annotations

import numpy as np

from ._arith import F32, quantize_float

OPS = ("quantize_linear", "dequantize_linear")


def _per_axis(node, param: np.ndarray, rank: int) -> np.ndarray:
    """A scale or zero point shaped to broadcast against the data (per tensor, or along `axis`)."""
    param = np.asarray(param)
    if param.size == 1:
        return param.reshape(())
    view = [1] * rank
    view[int(node.attrs.get("axis", 1)) % rank] = -1
    return param.reshape(view)


def reference(node, g, mode, x, scale, zero_point=None) -> np.ndarray:
    """Quantize float32 to the output's integer type, or dequantize codes to float32."""
    if node.attrs.get("block_size", 0):
        raise KeyError(f"no integer reference for blocked {node.op} (node '{node.name}')")
    s = _per_axis(node, scale, x.ndim).astype(F32)
    zp = np.zeros((), np.int64) if zero_point is None else _per_axis(node, zero_point, x.ndim).astype(np.int64)
    if node.op == "dequantize_linear":
        return ((x.astype(np.int64) - zp).astype(F32) * s).astype(F32)
    info = np.iinfo(np.dtype(g.tensors[node.outputs[0]].dtype))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return quantize_float((x.astype(F32) / s).astype(F32), zp, info.min, info.max)
