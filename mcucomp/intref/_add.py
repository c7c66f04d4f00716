"""The arithmetic of int8 addition, shared by the integer reference (add_s8.py), which it defines, and the kernel op
(mcucomp/ops/add_s8.py), whose C parameters it computes and whose linear form is checked against it on every pair
of int8 codes."""

from __future__ import annotations

import math

import numpy as np

from ..fixedpoint import multiply_by_quantized_multiplier as mbqm
from ..fixedpoint import quantize_multiplier_tflite, saturating_scale, single_rounding
from ._arith import F32, clampf, fmaf, quantize_float

#: TFLite's left shift of int8 ADD operands (add.cc: 20 for 8-bit, 15 for int16).
TFLITE_LEFT_SHIFT = 20


def tflite_add_multipliers(a_scale: float, b_scale: float, y_scale: float, y_cap: float = math.inf
                           ) -> list[tuple[int, int]]:
    """(mult, shift) of input a, input b and the output, computed as TFLite's add.cc Prepare does: in double from the
    float32 scales, twice the larger input scale as the common scale; the output's real multiplier at most y_cap
    (mcucomp.fixedpoint.saturating_scale: every nonzero sum saturates from there, and the sum's left shift stays
    small)."""
    a, b, y = (float(np.float32(s)) for s in (a_scale, b_scale, y_scale))
    twice_max = 2.0 * max(a, b)
    reals = (a / twice_max, b / twice_max, min(twice_max / ((1 << TFLITE_LEFT_SHIFT) * y), y_cap))
    return [quantize_multiplier_tflite(r) for r in reals]


def output_cap(attrs: dict) -> float:
    """The saturating bound of the output's real multiplier (tflite_add_multipliers' y_cap)."""
    return saturating_scale(attrs["qmin"], attrs["qmax"], attrs["y_zp"])


def qlinear_terms(attrs: dict) -> tuple[np.float32, np.float32, np.float32]:
    """QLinearAdd's float32 constants (r_ay, r_by, fixed): y = fmaf(a, r_ay, fmaf(b, r_by, fixed)) in the codes'
    domain (`offsets` added)."""
    a_off, b_off, y_off = attrs.get("offsets", (0, 0, 0))
    with np.errstate(over="ignore", invalid="ignore"):  # onnxruntime's float32 steps, infinities included
        r_ay, r_by = F32(attrs["a_scale"]) / F32(attrs["y_scale"]), F32(attrs["b_scale"]) / F32(attrs["y_scale"])
        # onnxruntime's compiled QLinearAdd contracts a_zp·r_ay + b_zp·r_by into one FMA: emulate it in float64,
        # where the product of two float32 values is exact, then round once.
        b_term = F32(r_by * F32(attrs["b_zp"] + b_off))
        fixed = F32(F32(attrs["y_zp"] + y_off) - F32(np.float64(r_ay) * np.float64(attrs["a_zp"] + a_off)
                                                     + np.float64(b_term)))
    return r_ay, r_by, fixed


def add_codes(a: dict, x_a, x_b) -> np.ndarray:
    """The output codes of a + b for add_s8 attributes `a` per a["mode"]: TFLite's ADD ('fixed': the lowering's choice
    with `--requant fixed`, or where QLinearAdd's float32 ratios would overflow), 'qlinear' or 'float'; numpy
    broadcasting."""
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
            r_ay, r_by, fixed = qlinear_terms(a)
            v = fmaf((qb + b_off).astype(F32), r_by, fixed)
            v = fmaf((qa + a_off).astype(F32), r_ay, v)
            return np.rint(clampf(v, a["qmin"] + y_off, a["qmax"] + y_off)).astype(np.int64) - y_off
        v = (qa - a["a_zp"]).astype(F32) * F32(a["a_scale"]) + (qb - a["b_zp"]).astype(F32) * F32(a["b_scale"])
        return quantize_float(v / F32(a["y_scale"]), a["y_zp"], a["qmin"], a["qmax"])
