"""The fixed-point requantization (`--requant fixed`): its numpy reference defines it, the C must match it.

This is TFLite's arithmetic (QuantizeMultiplier and MultiplyByQuantizedMultiplier of its reference kernels), which
LiteRT's pip build, CMSIS-NN's default build (arm_nn_requantize) and Ethos-U (Vela's TFL rounding mode) compute:

- a real multiplier m > 0 is stored as a Q31 integer `mult` in [2^30, 2^31) and a `shift`, with
  m ≈ mult · 2^-(31 + shift): frexp, then mult = round-half-away(mantissa · 2^31) (a mantissa rounding to 2^31 gives
  2^30 and one more left shift); TFLite's exponent is -shift. A multiplier whose exponent is below -31
  (m < about 2^-32) becomes mult = 0, shift = 0; left shifts above 30 (m ≥ 2^30) are refused.
- acc → out, two roundings: x = acc · 2^left (int32, wrapping, left = max(0, -shift)), then
  SaturatingRoundingDoublingHighMul(x, mult) = floor((x · mult + 2^30) / 2^31) (the nudge and the division towards
  zero of TFLite amount to this for every x, since mult ≥ 0 never overflows), then RoundingDivideByPOT by
  right = max(0, shift): round half away from zero; then + zp, saturated to [qmin, qmax].

CMSIS-NN built with CMSIS_NN_USE_SINGLE_ROUNDING (and TOSA RESCALE with double_round = false) round once and may
differ from this by 1 LSB on products within one rounding step of a half-way point.
"""

from __future__ import annotations

import math

import numpy as np

#: TFLite's largest left shift (1 << left must stay an int32): multipliers ≥ 2^30 cannot be represented.
MAX_LEFT_SHIFT = 30


def quantize_multiplier(real: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplier: (Q31 mult, shift) with real ≈ mult · 2^-(31 + shift); (0, 0) for zero or tiny."""
    if real <= 0.0:
        return 0, 0
    mant, exp = math.frexp(real)  # real = mant * 2^exp, mant in [0.5, 1)
    q = mant * (1 << 31)
    mult = int(math.floor(q + 0.5))  # TfLiteRound: half away from zero (q > 0)
    if mult == 1 << 31:
        mult, exp = 1 << 30, exp + 1
    if exp < -31:  # every bit would be shifted out: TFLite stores a zero multiplier instead
        return 0, 0
    if exp > MAX_LEFT_SHIFT:
        raise ValueError(f"requantization multiplier {real} is too large for fixed point (at most 2^30)")
    return mult, -exp


def doubling_high_mul(x: np.ndarray, mult: np.ndarray) -> np.ndarray:
    """TFLite's SaturatingRoundingDoublingHighMul for mult >= 0: floor((x · mult + 2^30) / 2^31), int64."""
    return (np.asarray(x, np.int64) * np.asarray(mult, np.int64) + (1 << 30)) >> 31


def rounding_divide_by_pot(x: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """TFLite's RoundingDivideByPOT: x / 2^exponent (0..31) rounded half away from zero."""
    x = np.asarray(x, np.int64)
    exponent = np.asarray(exponent, np.int64)
    mask = (np.int64(1) << exponent) - 1
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + ((x & mask) > threshold)


def wrap_int32(x: np.ndarray) -> np.ndarray:
    """x modulo 2^32 as a signed 32-bit value (int64 array)."""
    return ((np.asarray(x, np.int64) + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def requant_fixed(acc: np.ndarray, mult: np.ndarray, shift: np.ndarray, zp: int, qmin: int, qmax: int) -> np.ndarray:
    """Reference: TFLite's MultiplyByQuantizedMultiplier(acc, mult, -shift) + zp, saturated (acc int32)."""
    shift = np.asarray(shift, np.int64)
    left = np.maximum(-shift, 0)
    x = wrap_int32(np.asarray(acc, np.int64) << left)
    scaled = rounding_divide_by_pot(doubling_high_mul(x, mult), np.maximum(shift, 0))
    return np.clip(scaled + zp, qmin, qmax)
