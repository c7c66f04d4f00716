"""mul_s8: MLAS QLinearMul: float32(product of centred codes) · ratio, + zero point (two roundings, no FMA), round half
to even; a sum at or beyond 2^31 in magnitude saturates to the lowest code. With `--requant fixed` (the option
decides), TFLite's int8 MUL."""

from __future__ import annotations

import numpy as np

from ..fixedpoint import multiply_by_quantized_multiplier
from ..ops.mul_s8 import mul_ratio, tflite_mul_multiplier
from ._arith import F32, clampf

OPS = ("mul_s8",)


def reference(node, g, mode, x_a, x_b) -> np.ndarray:
    """(a - a_zp)(b - b_zp) requantized by a_scale·b_scale / y_scale in QLinearMul's order; numpy broadcasting."""
    a = node.attrs
    qa, qb = np.broadcast_arrays(x_a.astype(np.int64), x_b.astype(np.int64))
    if mode == "fixed":
        mult, shift = tflite_mul_multiplier(a)
        product = (qa - a["a_zp"]) * (qb - a["b_zp"])
        return np.clip(multiply_by_quantized_multiplier(product, mult, shift) + a["y_zp"], a["qmin"], a["qmax"])
    ratio = mul_ratio(a)
    off = a.get("y_off", 0)
    with np.errstate(over="ignore"):  # a ratio near the largest float32 overflows as in the C: the lowest code
        v = ((qa - a["a_zp"]) * (qb - a["b_zp"])).astype(F32) * ratio
        v = (v + F32(a["y_zp"] + off)).astype(F32)
    out = np.rint(clampf(v, a["qmin"] + off, a["qmax"] + off)).astype(np.int64) - off
    return np.where((v >= F32(2.0**31)) | (v < F32(-2.0**31)), a["qmin"], out)
