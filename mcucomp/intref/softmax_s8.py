"""softmax_s8: QLinearSoftmax's table arithmetic ('qlinear'), or dequantize a row, mcu_softmax_strided in float32,
QuantizeLinear ('float')."""

from __future__ import annotations

import numpy as np

from ..ops.softmax_s8 import qlinear_table
from ._arith import F32, clampf, quantize_float, softmax_row

OPS = ("softmax_s8",)


def reference(node, g, mode, x) -> np.ndarray:
    """Dequantize a row, mcu_softmax_strided, then QuantizeLinear (v / y_scale, clamp, round half to even)."""
    a = node.attrs
    rows = np.moveaxis(x.astype(np.int64), a["axis"], -1)
    if a.get("mode", "float") == "qlinear":
        return np.moveaxis(_qlinear(a, rows), -1, a["axis"])
    deq = (rows - a["x_zp"]).astype(F32) * F32(a["x_scale"])
    prob = np.stack([softmax_row(r) for r in deq.reshape(-1, deq.shape[-1])]).reshape(deq.shape)
    out = quantize_float(prob / F32(a["y_scale"]), a["y_zp"], a["qmin"], a["qmax"])
    return np.moveaxis(out, -1, a["axis"])


def _qlinear(a: dict, rows: np.ndarray) -> np.ndarray:
    """Per row: e = table[x - max], a float32 sum in index order, code = min(round(e·floor(1/y_scale) / sum) + zp,
    top) in onnxruntime's type (uint8 codes are ours + 128 when ort_u8); an infinite product gives inf_code."""
    offset = 128 if a.get("ort_u8") else 0
    top = 255 if offset else 127
    inf_code = a["y_zp"] + offset if offset else 127
    table = qlinear_table(a["x_scale"], rows.shape[-1])
    e = table[rows - rows.max(axis=-1, keepdims=True) + 255]
    total = np.zeros(rows.shape[:-1], F32)
    for k in range(rows.shape[-1]):
        total = (total + e[..., k]).astype(F32)
    mult = F32(np.floor(F32(1.0) / F32(a["y_scale"])))
    with np.errstate(over="ignore", invalid="ignore"):
        t = (e * mult).astype(F32)
        q = np.rint(clampf(t / total[..., None], 0.0, F32(top - a["y_zp"] - offset + 1))).astype(np.int64)
    code = np.minimum(q + a["y_zp"] + offset, top)
    return np.where(np.isinf(t), inf_code, code) - offset
