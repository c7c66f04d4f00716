"""The fixed-point requantization (`--requant fixed`): its numpy reference defines it, the C must match it.

A real multiplier m > 0 is stored as a Q31 integer `mult` in [2^30, 2^31) and a `shift`, with
m ≈ mult · 2^-(31 + shift). The result is round_half_up(acc · mult / 2^(31 + shift)) + zp, saturated.

That is TOSA RESCALE with double_round = false (one rounding of the 64-bit product), which Ethos-U computes, and
CMSIS-NN's arm_nn_requantize built with CMSIS_NN_USE_SINGLE_ROUNDING. It differs from TFLite's reference and
CMSIS-NN's default (SaturatingRoundingDoublingHighMul, then a rounding right shift: two roundings) by at most 1 LSB,
on products that lie within one rounding step of a half-way point.
"""

from __future__ import annotations

import math

import numpy as np


def quantize_multiplier(real: float) -> tuple[int, int]:
    """Q31 multiplier and shift for a real multiplier in (0, 2^30); (0, 0) for zero."""
    if real <= 0.0:
        return 0, 0
    mant, exp = math.frexp(real)  # real = mant * 2^exp, mant in [0.5, 1)
    mult = int(round(mant * (1 << 31)))
    if mult == 1 << 31:
        mult, exp = 1 << 30, exp + 1
    shift = -exp
    if 31 + shift < 1:
        raise ValueError(f"requantization multiplier {real} is too large for fixed point")
    if 31 + shift > 62:
        return 0, 0
    return mult, shift


def requant_fixed(acc: np.ndarray, mult: np.ndarray, shift: np.ndarray, zp: int, qmin: int, qmax: int) -> np.ndarray:
    """Reference: round-half-up of acc·mult / 2^(31+shift), plus zp, saturated (int64 intermediate)."""
    acc = np.asarray(acc, dtype=np.int64)
    total = (31 + np.asarray(shift, dtype=np.int64))
    prod = acc * np.asarray(mult, dtype=np.int64)
    rounded = (prod + (np.int64(1) << (total - 1))) >> total
    return np.clip(rounded + zp, qmin, qmax)
