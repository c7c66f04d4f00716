"""add_s8: QLinearAdd's arithmetic (two fmaf with the scale ratios and a fixed term, in onnxruntime's uint8 domain
where `offsets` say so), or the float dequantize, add, quantize sequence; with `--requant fixed`, TFLite's int8 ADD
(whatever the node says: the option decides); numpy broadcasting."""

from __future__ import annotations

import numpy as np

from ..fixedpoint import multiply_by_quantized_multiplier as mbqm
from ..fixedpoint import single_rounding
from ..ops.add_s8 import TFLITE_LEFT_SHIFT, output_cap, tflite_add_multipliers
from ._arith import F32, clampf, fmaf, quantize_float

OPS = ("add_s8",)


def reference(node, g, mode, x_a, x_b) -> np.ndarray:
    """a + b requantized to y's parameters per the node's mode: TFLite's ADD ('fixed': the lowering's choice with
    `--requant fixed`, or where QLinearAdd's float32 ratios would overflow), 'qlinear' or 'float'."""
    a = node.attrs
    qa, qb = np.broadcast_arrays(x_a.astype(np.int64), x_b.astype(np.int64))
    if a["mode"] == "fixed":
        (am, ash), (bm, bsh), (ym, ysh) = tflite_add_multipliers(a["a_scale"], a["b_scale"], a["y_scale"],
                                                                   output_cap(a))
        # each operand rescaled as LiteRT's builtin int8 ADD does: one rounding half up (reference_integer_ops::Add
        # rounds twice; they differ on about 1 in 10^6 operand pairs; tests/kernels/test_add_s8.py checks LiteRT)
        sa = single_rounding((qa - a["a_zp"]) << TFLITE_LEFT_SHIFT, am, -ash)
        sb = single_rounding((qb - a["b_zp"]) << TFLITE_LEFT_SHIFT, bm, -bsh)
        return np.clip(mbqm(sa + sb, ym, ysh) + a["y_zp"], a["qmin"], a["qmax"])
    with np.errstate(over="ignore", invalid="ignore"):  # float32 steps as the C takes them, infinities included
        if a["mode"] == "qlinear":
            a_off, b_off, y_off = a.get("offsets", (0, 0, 0))
            r_ay, r_by = F32(a["a_scale"]) / F32(a["y_scale"]), F32(a["b_scale"]) / F32(a["y_scale"])
            b_term = F32(r_by * F32(a["b_zp"] + b_off))
            fixed = F32(F32(a["y_zp"] + y_off) - F32(np.float64(r_ay) * np.float64(a["a_zp"] + a_off)
                                                     + np.float64(b_term)))
            v = fmaf((qb + b_off).astype(F32), r_by, fixed)
            v = fmaf((qa + a_off).astype(F32), r_ay, v)
            return np.rint(clampf(v, a["qmin"] + y_off, a["qmax"] + y_off)).astype(np.int64) - y_off
        v = (qa - a["a_zp"]).astype(F32) * F32(a["a_scale"]) + (qb - a["b_zp"]).astype(F32) * F32(a["b_scale"])
        return quantize_float(v / F32(a["y_scale"]), a["y_zp"], a["qmin"], a["qmax"])
