"""256-entry tables of 8-bit → 8-bit functions, computed at compile time in onnxruntime's float32 arithmetic.

onnxruntime's lookup-table contrib kernels (QLinearSigmoid, QLinearLeakyRelu, and the requantizing inputs of
QLinearConcat and QLinearWhere) build their table the same way (QlinearBuildLookupTable): each of the 256 codes is
dequantized in float32 as x_scale · (code - x_zp), mapped by a float function, and quantized by MlasQuantizeLinear
(float32 division by y_scale, clamp to the code range minus the zero point, round half to even, add the zero
point). The functions here reproduce that float32 arithmetic in numpy, operation by operation.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

import numpy as np

f32 = np.float32

#: Code ranges of the 8-bit types.
CODE_RANGE = {"int8": (-128, 127), "uint8": (0, 255)}

# MLAS logistic (MlasLogisticConstants): Eigen's rational approximation p(x)/q(x) + 1/2 on [-18, 18].
_LOGISTIC_RANGE = 18.0
_ALPHA = (4.37031012579801e-11, 1.15627324459942e-07, 6.08574864600143e-05, 8.51377133304701e-03,
          2.48287947061529e-01)
_BETA = (6.10247389755681e-13, 5.76102136993427e-09, 6.29106785017040e-06, 1.70198817374094e-03,
         1.16817656904453e-01, 9.93151921023180e-01)


def _round_f32(exact: Fraction) -> np.float32:
    """The float32 nearest to an exact rational (ties to even), without double rounding through float64."""
    near = f32(float(exact))
    candidates = [near, np.nextafter(near, f32(-np.inf)), np.nextafter(near, f32(np.inf))]

    def key(c: np.float32) -> tuple[Fraction, int]:
        return abs(Fraction(float(c)) - exact), int(np.frombuffer(c.tobytes(), np.uint32)[0]) & 1

    return min(candidates, key=key)


def fma_f32(a: np.float32, b: np.float32, c: np.float32) -> np.float32:
    """fmaf(a, b, c): a·b + c rounded once to float32."""
    return _round_f32(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)))


def mlas_logistic(x: np.ndarray) -> np.ndarray:
    """MlasComputeLogistic on x86-64 with FMA3 (MlasLogisticKernelFma3): clamp x to [-18, 18], p and q by fused
    multiply-adds in Horner form over x², p·x, then p / q + 0.5, clamped to [0, 1]."""
    out = np.empty_like(x, dtype=f32)
    for i, v in enumerate(np.asarray(x, f32).reshape(-1)):
        v = min(max(v, f32(-_LOGISTIC_RANGE)), f32(_LOGISTIC_RANGE))
        sq = f32(v * v)
        p = fma_f32(sq, f32(_ALPHA[0]), f32(_ALPHA[1]))
        for c in _ALPHA[2:]:
            p = fma_f32(p, sq, f32(c))
        p = f32(p * v)
        q = fma_f32(sq, f32(_BETA[0]), f32(_BETA[1]))
        for c in _BETA[2:]:
            q = fma_f32(q, sq, f32(c))
        out.reshape(-1)[i] = min(max(f32(f32(p / q) + f32(0.5)), f32(0.0)), f32(1.0))
    return out


def leaky_relu(alpha: float) -> Callable[[np.ndarray], np.ndarray]:
    """onnxruntime's QLinearLeakyRelu transform: v >= 0 ? v : alpha · v, in float32."""
    a = f32(alpha)
    return lambda v: np.where(v >= f32(0), v, (a * v).astype(f32)).astype(f32)


def identity(v: np.ndarray) -> np.ndarray:
    """The requantizing transform of QLinearConcat and QLinearWhere."""
    return v


def quantize_linear(v: np.ndarray, scale: float, zp: int, dtype: str) -> np.ndarray:
    """MlasQuantizeLinear: v / scale in float32, clamped to [lo - zp, hi - zp], rounded half to even, plus zp."""
    lo, hi = CODE_RANGE[dtype]
    q = (np.asarray(v, f32) / f32(scale)).astype(f32)
    q = np.minimum(np.maximum(q, f32(lo - zp)), f32(hi - zp))
    return (np.rint(q).astype(np.int32) + zp).astype(np.int32)


def code_table(x_scale: float, x_zp: int, x_dtype: str, y_scale: float, y_zp: int, y_dtype: str,
               fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Output code for every input code x_lo..x_hi of x_dtype, in order (int32, in y_dtype's range)."""
    lo, hi = CODE_RANGE[x_dtype]
    codes = np.arange(lo, hi + 1, dtype=np.int32)
    with np.errstate(over="ignore"):  # a scale near the largest float32 gives infinities, as DequantizeLinear does
        real = (f32(x_scale) * (codes - x_zp).astype(f32)).astype(f32)
    return quantize_linear(fn(real), y_scale, y_zp, y_dtype)
