"""256-entry tables of the 8-bit activations in TFLite's int8 arithmetic (`--requant fixed`), so that mcucomp's
all-CPU fixed build equals TFLite (and an Ethos-U region checked against LiteRT) bit for bit.

- LOGISTIC, TANH: LiteRT's builtin int8 kernels look the result up in a table built by LUTPopulate: per code,
  x = in_scale · (code - in_zp) in float32, f(x) in float32 (1 / (1 + exp(-x)), tanh), round(f(x) · (1 / out_scale))
  half away from zero, + out_zp, saturated.
- HARD_SWISH: reference_ops::HardSwish, TFLite's 16-bit fixed-point algorithm, evaluated for every code.
- LEAKY_RELU: QuantizeLeakyRelu, MultiplyByQuantizedMultiplier by the identity or the alpha multiplier.
- RELU, RELU6, RELU_N1_TO_1 (Relu, Clip): ReluX, MultiplyByQuantizedMultiplier by in_scale / out_scale, clamped
  to the quantized bounds (CalculateActivationRangeQuantized).
Every multiplier is computed as TFLite's Prepare computes it (float32 arithmetic, then QuantizeMultiplier).
"""

from __future__ import annotations

import math

import numpy as np

from ..fixedpoint import multiply_by_quantized_multiplier, quantize_multiplier_tflite, rounding_divide_by_pot

f32 = np.float32
CODES = np.arange(-128, 128, dtype=np.int64)


def _round_away(v: np.ndarray) -> np.ndarray:
    """TfLiteRound (std::round): half away from zero."""
    return np.sign(v) * np.floor(np.abs(np.asarray(v, np.float64)) + 0.5)


def _expf(v: np.ndarray) -> np.ndarray:
    """exp in float32, correctly rounded (float64 exp, one rounding)."""
    return np.exp(np.asarray(v, np.float64)).astype(f32)


def lut_populate(in_scale: float, in_zp: int, out_scale: float, out_zp: int, fn) -> np.ndarray:
    """TFLite LUTPopulate<int8_t>: the output code of every input code -128..127, fn in float32."""
    with np.errstate(over="ignore"):  # a scale near the largest float32 gives infinities, as in float32 on target
        x = (f32(in_scale) * (CODES - in_zp).astype(f32)).astype(f32)
        y = fn(x).astype(f32)
        rescaled = _round_away((y * (f32(1) / f32(out_scale))).astype(f32)).astype(f32)
    return np.clip((rescaled + f32(out_zp)).astype(np.float64), -128, 127).astype(np.int64)


def logistic(x: np.ndarray) -> np.ndarray:
    """LiteRT's int8 LOGISTIC transform: 1 / (1 + exp(-x)) in float32."""
    return (f32(1) / (f32(1) + _expf(-x))).astype(f32)


def tanh(x: np.ndarray) -> np.ndarray:
    """LiteRT's int8 TANH transform: tanh in float32 (correctly rounded)."""
    return np.tanh(np.asarray(x, np.float64)).astype(f32)


def _srdhm16(a, b) -> np.ndarray:
    """gemmlowp SaturatingRoundingDoublingHighMul on int16."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    ab = a * b
    total = ab + np.where(ab >= 0, 1 << 14, 1 - (1 << 14))
    high = np.where(total >= 0, total >> 15, -((-total) >> 15))
    return np.where((a == b) & (a == -(1 << 15)), (1 << 15) - 1, high)


def _sdhm16(a, b) -> np.ndarray:
    """TFLite SaturatingDoublingHighMul on int16 (truncating, no rounding nudge)."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    ab = a * b
    high = np.where(ab >= 0, ab >> 15, -((-ab) >> 15))
    return np.where((a == b) & (a == -(1 << 15)), (1 << 15) - 1, high)


def _sat_left_shift16(v, amount: int) -> np.ndarray:
    """TFLite SaturatingLeftShift on int16."""
    return np.clip(np.asarray(v, np.int64) << amount, -(1 << 15), (1 << 15) - 1)


def _int16_multiplier(real: float) -> tuple[int, int]:
    """QuantizeMultiplier, then DownScaleInt32ToInt16Multiplier: (Q15 multiplier, exponent)."""
    mult, exponent = quantize_multiplier_tflite(real)
    if mult >= (1 << 31) - 1 - (1 << 15):
        return (1 << 15) - 1, exponent
    return (mult + (1 << 15)) >> 16, exponent


def hard_swish(in_scale: float, in_zp: int, out_scale: float, out_zp: int) -> np.ndarray:
    """reference_ops::HardSwish<int8_t> for every code, with HardSwishPrepare's multipliers."""
    hires_scale = f32(f32(1.0 / 128.0) * f32(in_scale))
    out_mult, out_exp = _int16_multiplier(float(f32(hires_scale / f32(out_scale))))
    relu_mult, relu_exp = _int16_multiplier(float(f32(hires_scale / f32(3.0 / 32768.0))))
    hires = (CODES - in_zp) * 128
    preshift = _srdhm16(hires, out_mult)
    reluish = hires
    if relu_exp > 0:
        reluish = _sat_left_shift16(reluish, relu_exp - 1)
    reluish = _srdhm16(reluish, relu_mult)
    if relu_exp > 0:
        reluish = _sat_left_shift16(reluish, 1)
    if relu_exp < 0:
        reluish = rounding_divide_by_pot(reluish, -relu_exp)
    reluish = (reluish + (1 << 15)) >> 1
    out = rounding_divide_by_pot(_sdhm16(reluish, preshift), -out_exp) + out_zp
    return np.clip(out, -128, 127)


def leaky_relu(in_scale: float, in_zp: int, out_scale: float, out_zp: int, alpha: float) -> np.ndarray:
    """reference_ops::QuantizeLeakyRelu for every code, with LeakyReluPrepare's two multipliers."""
    alpha_m = quantize_multiplier_tflite(float(f32(f32(f32(in_scale) * f32(alpha)) / f32(out_scale))))
    ident_m = quantize_multiplier_tflite(float(f32(f32(in_scale) / f32(out_scale))))
    x = CODES - in_zp
    out = np.where(x >= 0, multiply_by_quantized_multiplier(x, *ident_m), multiply_by_quantized_multiplier(x, *alpha_m))
    return np.clip(out + out_zp, -128, 127)


def relu_x(in_scale: float, in_zp: int, out_scale: float, out_zp: int, lo: float | None, hi: float | None
           ) -> np.ndarray:
    """TFLite ReluX (RELU, RELU6, RELU_N1_TO_1 and a general Clip) for every code: the input rescaled by
    in_scale / out_scale, clamped to the quantized bounds."""

    def bound(v: float | None, default: int) -> int:
        """CalculateActivationRangeQuantized: zp + round(v / scale) in float32, within the int8 range."""
        if v is None or math.isinf(v):
            return default
        return out_zp + int(_round_away(f32(f32(v) / f32(out_scale))))

    mult = quantize_multiplier_tflite(float(f32(f32(in_scale) / f32(out_scale))))
    out = multiply_by_quantized_multiplier(CODES - in_zp, *mult) + out_zp
    return np.clip(out, max(-128, bound(lo, -128)), min(127, bound(hi, 127)))


#: ONNX activations with a TFLite int8 kernel (HardSigmoid has none: its table stays onnxruntime's in fixed mode).
TFLITE_ACTIVATIONS = ("Sigmoid", "Tanh", "HardSwish", "LeakyRelu", "Relu", "Clip")


def tflite_table(op: str, attrs: dict, x_q: tuple[float, int, str], y_q: tuple[float, int, str],
                 clip: tuple[float | None, float | None] = (None, None)) -> np.ndarray | None:
    """The lut8 table (output code per input code, lowest first, in the tensors' own 8-bit types) of an ONNX
    activation in TFLite's int8 arithmetic, or None when TFLite has no int8 kernel for it. x_q and y_q are (scale,
    zero point, dtype); a uint8 side is computed as int8 with its codes and zero point 128 lower (TFLite's arithmetic
    only sees code - zero point, and the clamp bounds move with the codes)."""
    if op not in TFLITE_ACTIVATIONS:
        return None
    (xs, xz, xt), (ys, yz, yt) = x_q, y_q
    x_off, y_off = (128 if t == "uint8" else 0 for t in (xt, yt))
    xz, yz = xz - x_off, yz - y_off
    if op == "Sigmoid":
        table = lut_populate(xs, xz, ys, yz, logistic)
    elif op == "Tanh":
        table = lut_populate(xs, xz, ys, yz, tanh)
    elif op == "HardSwish":
        table = hard_swish(xs, xz, ys, yz)
    elif op == "LeakyRelu":
        table = leaky_relu(xs, xz, ys, yz, attrs.get("alpha", 0.01))
    else:
        table = relu_x(xs, xz, ys, yz, 0.0 if op == "Relu" else clip[0], None if op == "Relu" else clip[1])
    return (table + y_off).astype(np.int32)
