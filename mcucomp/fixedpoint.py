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


# TFLite's MultiplyByQuantizedMultiplier (two roundings) for the elementwise kernels' `fixed` mode (add_s8, mul_s8,
# lut8 tables), which must equal TFLite's int8 ADD/MUL/activation kernels bit for bit.
# H10b's version of these helpers (issue 11: `fixed` = TFLite arithmetic everywhere) wins at merge.

def quantize_multiplier_tflite(real: float) -> tuple[int, int]:
    """TFLite QuantizeMultiplier: (Q31 mult, shift) with real ≈ mult · 2^(shift - 31), shift > 0 a left shift;
    the mantissa rounded half away from zero (std::round); multipliers below 2^-32 become (0, 0)."""
    if real == 0.0:
        return 0, 0
    mant, shift = math.frexp(real)
    mult = int(math.floor(abs(mant) * (1 << 31) + 0.5)) * (1 if mant > 0 else -1)
    if mult == 1 << 31:
        mult, shift = mult // 2, shift + 1
    if shift < -31:
        return 0, 0
    return mult, shift


def saturating_rounding_doubling_high_mul(a, b) -> np.ndarray:
    """gemmlowp SaturatingRoundingDoublingHighMul on int32 values: (a·b + nudge) / 2^31 truncated, the one overflow
    (INT32_MIN · INT32_MIN) saturated."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    ab = a * b
    nudge = np.where(ab >= 0, np.int64(1 << 30), np.int64(1 - (1 << 30)))
    total = ab + nudge
    high = np.where(total >= 0, total >> 31, -((-total) >> 31))  # C division truncates towards zero
    return np.where((a == b) & (a == -(1 << 31)), np.int64((1 << 31) - 1), high)


def rounding_divide_by_pot(x, exponent) -> np.ndarray:
    """gemmlowp RoundingDivideByPOT: x / 2^exponent rounded half away from zero."""
    x, exponent = np.asarray(x, np.int64), np.asarray(exponent, np.int64)
    mask = (np.int64(1) << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + (remainder > threshold)


def multiply_by_quantized_multiplier(x, mult, shift) -> np.ndarray:
    """TFLite MultiplyByQuantizedMultiplier: x · 2^max(shift, 0) (int32 wraparound), SRDHM by mult, then a rounding
    right shift by max(-shift, 0)."""
    shift = np.asarray(shift, np.int64)
    left = np.maximum(shift, 0)
    shifted = ((np.asarray(x, np.int64) << left) + (1 << 31)) % (1 << 32) - (1 << 31)
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, mult), np.maximum(-shift, 0))
