"""Arithmetic shared by the integer reference kernels: exactly rounded float32 steps, the two requantization modes,
window taps. Everything here mirrors a documented C helper (runtime_c/mcu_rt.h, runtime_c/mcu_math.h)."""

from __future__ import annotations

import numpy as np

from ..fixedpoint import quantize_multiplier, requant_fixed

F32 = np.float32


def fmaf(a, b, c) -> np.ndarray:
    """Exactly rounded float32 a·b + c: the product is exact in float64, the sum is rounded to odd in float64
    (TwoSum error decides the sticky bit), so the final rounding to float32 is the only one that counts."""
    a, b, c = (np.asarray(v, F32) for v in (a, b, c))
    with np.errstate(invalid="ignore", over="ignore"):  # infinities and NaN propagate as IEEE says, silently
        p = a.astype(np.float64) * b.astype(np.float64)
        c64 = c.astype(np.float64)
        s = p + c64
        bv = s - p
        err = (p - (s - bv)) + (c64 - bv)
        even = (s.view(np.int64) & 1) == 0
        s = np.where((err != 0) & even, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
        return s.astype(F32)


def pow2i(n) -> np.ndarray:
    """2^n as float32 for -126 <= n <= 127 (n an integer array)."""
    return ((np.asarray(n, np.int64) + 127) << 23).astype(np.uint32).view(F32)


def expf(x) -> np.ndarray:
    """mcu_expf (runtime_c/mcu_math.h): MLAS's range reduction and degree-6 polynomial, in float32."""
    x = np.asarray(x, F32)
    bias = F32(12582912.0)
    n = fmaf(x, F32(1.44269504088896341), bias) - bias
    k = np.clip(np.nan_to_num(n), -200, 200).astype(np.int64)
    r = fmaf(n, F32(-6.93145752e-1), x)
    r = fmaf(n, F32(-1.42860677e-6), r)
    p = np.full_like(x, F32(float.fromhex("0x1.694000p-10")))
    for coeff in ("0x1.125edcp-7", "0x1.555b5ap-5", "0x1.555450p-3", "0x1.fffff6p-2"):
        p = fmaf(p, r, F32(float.fromhex(coeff)))
    p = fmaf(p, r, F32(1.0))
    p = fmaf(p, r, F32(1.0))
    with np.errstate(over="ignore", under="ignore"):  # every branch is evaluated; np.where keeps the right one
        big = (p * F32(2.0)) * pow2i(np.clip(k - 1, -126, 127))
        tiny = (p * pow2i(np.clip(k + 64, -126, 127))) * pow2i(-64)
        y = np.where(k > 127, big, np.where(k < -126, tiny, p * pow2i(np.clip(k, -126, 127))))
    y = np.where(x > F32(88.7228394), F32(np.inf), np.where(x < F32(-103.972084), F32(0.0), y))
    return np.where(np.isnan(x), x, y).astype(F32)


def softmax_row(x: np.ndarray) -> np.ndarray:
    """mcu_softmax_strided on one row: max, e^(x - max), 16-lane sum reduced pairwise, times 1 / sum."""
    x = np.asarray(x, F32)
    e = expf(x + (-x.max()))
    lanes = np.zeros(16, F32)
    for i, v in enumerate(e):
        lanes[i % 16] = lanes[i % 16] + v
    a = lanes[8:] + lanes[:8]
    total = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
    return e * (F32(1.0) / total)


def clampf(v, lo, hi) -> np.ndarray:
    """mcu_clampf: NaN goes to lo."""
    v = np.asarray(v, F32)
    return np.where(~(v >= F32(lo)), F32(lo), np.where(v > F32(hi), F32(hi), v)).astype(F32)


def quantize_float(v, zp: int, qmin: int, qmax: int) -> np.ndarray:
    """Clamp to [qmin - zp, qmax - zp], round half to even, add zp (the end of every float int8 path)."""
    return np.rint(clampf(v, qmin - zp, qmax - zp)).astype(np.int64) + zp


def requantize(acc: np.ndarray, mode: str, scale, zp: int, qmin: int, qmax: int, div: float = 0.0,
               rounding: str = "double") -> np.ndarray:
    """An int32 accumulator [N, C, ...] to the output range; scale is per tensor or per channel (axis 1).

    mode "fixed": the real multiplier (scale, / div when set) as mcucomp.fixedpoint's Q31 mult and shift, in the
    given rounding ("double" or "single");
    mode "float": float32 acc·scale [/ div], clamp, round half to even, + zp (onnxruntime's integer kernels)."""
    acc = np.asarray(acc, np.int64)
    scale = np.asarray(scale, F32).reshape(-1)
    bshape = [1] * acc.ndim
    if scale.size > 1:
        bshape[1] = scale.size
    if mode == "fixed":
        real = scale.astype(np.float64) / (div if div else 1.0)
        pairs = [quantize_multiplier(float(r)) for r in real]
        mult = np.array([m for m, _ in pairs], np.int64).reshape(bshape)
        shift = np.array([s for _, s in pairs], np.int64).reshape(bshape)
        return requant_fixed(acc, mult, shift, zp, qmin, qmax, rounding)
    v = acc.astype(F32) * scale.reshape(bshape)
    if div:
        v = v / F32(div)
    return quantize_float(v, zp, qmin, qmax)


def requantize_rq(acc: np.ndarray, mode: str, rq) -> np.ndarray:
    """requantize with the scale, zero point, range, divisor and rounding of a mcucomp.quant.Requant."""
    return requantize(acc, mode, rq.scale, rq.zp, rq.qmin, rq.qmax, rq.div, rq.rounding)


def windows(x: np.ndarray, attrs: dict, out_hw: tuple[int, int], pad_value) -> np.ndarray:
    """Every window tap of an NCHW input: [N, C, k_h, k_w, H_out, W_out]; taps in the pads, or past them (a ceil_mode
    window), read pad_value."""
    (kh, kw), (sh, sw), (dh, dw) = attrs["kernel"], attrs["strides"], attrs["dilations"]
    pt, pl, pb, pr = attrs["pads"]
    oh, ow = out_hw
    past_b = max(0, (oh - 1) * sh + (kh - 1) * dh + 1 - (pt + x.shape[2] + pb))
    past_r = max(0, (ow - 1) * sw + (kw - 1) * dw + 1 - (pl + x.shape[3] + pr))
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb + past_b), (pl, pr + past_r)), constant_values=pad_value)
    taps = np.empty(x.shape[:2] + (kh, kw, oh, ow), x.dtype)
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * dh, kx * dw
            taps[:, :, ky, kx] = xp[:, :, y0:y0 + sh * (oh - 1) + 1:sh, x0:x0 + sw * (ow - 1) + 1:sw]
    return taps


def nchw(a: np.ndarray) -> np.ndarray:
    """View a rank-3 (N, C, W) array as N, C, 1, W."""
    return a[:, :, None, :] if a.ndim == 3 else a


