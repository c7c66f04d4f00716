"""The fixed-point requantization (`--requant fixed`): its numpy reference defines it, the C must match it.

This is TFLite's arithmetic (QuantizeMultiplier and MultiplyByQuantizedMultiplier of its reference kernels), which
LiteRT's pip build, CMSIS-NN's default build (arm_nn_requantize) and Ethos-U (Vela's TFL rounding mode) compute:

- a real multiplier m > 0 is stored as a Q31 integer `mult` in [2^30, 2^31) and a `shift`, with
  m ≈ mult · 2^-(31 + shift): frexp, then mult = round-half-away(mantissa · 2^31) (a mantissa rounding to 2^31 gives
  2^30 and one more left shift); TFLite's exponent is -shift. A multiplier whose exponent is below -31
  (m < about 2^-32) becomes mult = 0, shift = 0 (TFLite flushes it so: every bit would be shifted out); one whose
  exponent is above 30 (m ≥ 2^30, infinity included) becomes mult = 2^31 - 1, shift = -30, as TFLite's
  single-rounding build saturates it: 2^30 · (1 - 2^-31), so an accumulator of ±1 already saturates any 8- or 16-bit
  output. The multiplier itself is a float64 quotient of the scales (mcucomp.quant.combined_scale), so neither end
  overflows or underflows on the way.
- acc → out, two roundings: x = acc · 2^left (int32, wrapping, left = max(0, -shift)), then
  SaturatingRoundingDoublingHighMul(x, mult) = floor((x · mult + 2^30) / 2^31) (the nudge and the division towards
  zero of TFLite amount to this for every x, since mult ≥ 0 never overflows), then RoundingDivideByPOT by
  right = max(0, shift): round half away from zero; then + zp, saturated to [qmin, qmax].

Two roundings per op, as LiteRT 2.3's reference kernels compute them (bench/litert_requant_check.py): "double" (the
above: CONV_2D, DEPTHWISE_CONV_2D) and "single" (FULLY_CONNECTED; TFLITE_SINGLE_ROUNDING's
MultiplyByQuantizedMultiplier, CMSIS_NN_USE_SINGLE_ROUNDING, TOSA RESCALE with double_round = false):
round_half_up(acc · mult / 2^(31 + shift)) from the exact 64-bit product. The kernel op decides which one its
requantization uses (mcucomp.quant.Requant.rounding). Double rounding with a right shift r moves the outputs whose
exact value lies within 2^-(r+1) below a half-way point up by one: with r = 1, a quarter of them.
"""

from __future__ import annotations

import math

import numpy as np

#: TFLite's largest left shift (1 << left must stay an int32): larger multipliers saturate to 2^30 · (1 - 2^-31).
MAX_LEFT_SHIFT = 30


def quantize_multiplier(real: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplier: (Q31 mult, shift) with real ≈ mult · 2^-(31 + shift); (0, 0) for zero or tiny,
    (2^31 - 1, -30) for 2^30 and above."""
    if not real > 0.0:
        return 0, 0
    if real >= 2.0**MAX_LEFT_SHIFT:  # infinity included
        return (1 << 31) - 1, -MAX_LEFT_SHIFT
    mant, exp = math.frexp(real)  # real = mant * 2^exp, mant in [0.5, 1)
    q = mant * (1 << 31)
    mult = int(math.floor(q + 0.5))  # TfLiteRound: half away from zero (q > 0)
    if mult == 1 << 31:
        mult, exp = 1 << 30, exp + 1
    if exp < -31:  # every bit would be shifted out: TFLite stores a zero multiplier instead
        return 0, 0
    if exp > MAX_LEFT_SHIFT:  # a mantissa rounding up to 2^31 just below 2^30
        return (1 << 31) - 1, -MAX_LEFT_SHIFT
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


ROUNDINGS = ("double", "single")


def multiply_by_quantized_multiplier(x: np.ndarray, mult: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """TFLite's MultiplyByQuantizedMultiplier (double rounding) with TFLite's shift sign: shift > 0 is a left shift."""
    shift = np.asarray(shift, np.int64)
    x = wrap_int32(np.asarray(x, np.int64) << np.maximum(shift, 0))
    return rounding_divide_by_pot(doubling_high_mul(x, mult), np.maximum(-shift, 0))


def quantize_multiplier_tflite(real: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplier with its shift sign (shift > 0 is a left shift): (mult, -quantize_multiplier's)."""
    mult, shift = quantize_multiplier(real)
    return mult, -shift


def single_rounding(acc: np.ndarray, mult: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """round_half_up(acc · mult / 2^(31 + shift)) from the exact product (shift >= -30)."""
    total = 31 + np.asarray(shift, np.int64)
    return (np.asarray(acc, np.int64) * np.asarray(mult, np.int64) + (np.int64(1) << (total - 1))) >> total


def requant_fixed(acc: np.ndarray, mult: np.ndarray, shift: np.ndarray, zp: int, qmin: int, qmax: int,
                  rounding: str = "double") -> np.ndarray:
    """Reference: acc (int32) times the multiplier in the given rounding ("double": TFLite's
    MultiplyByQuantizedMultiplier(acc, mult, -shift); "single": one round-half-up), + zp, saturated."""
    if rounding == "single":
        scaled = single_rounding(acc, mult, shift)
    else:
        scaled = multiply_by_quantized_multiplier(acc, mult, -np.asarray(shift, np.int64))
    return np.clip(scaled + zp, qmin, qmax)


def saturating_scale(qmin: int, qmax: int, zp: int) -> float:
    """The smallest power of two at which zp + acc · scale leaves [qmin, qmax] for every nonzero integer acc."""
    return 2.0 ** max(1, abs(int(qmax) - int(zp)), abs(int(zp) - int(qmin))).bit_length()
