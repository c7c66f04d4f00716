"""Quantization helpers shared by the int8 lowering passes and int8 kernel ops."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .fixedpoint import quantize_multiplier, saturating_scale
from .ops.base import ArrayRef

QRANGE = {"int8": (-128, 127), "uint8": (0, 255)}


@dataclass
class Requant:
    """acc → out: v = acc·scale[c] (then v / div when div != 0), clamp to [qmin, qmax] after adding zp.

    mode "float": float32 multiply (and divide), round half to even (onnxruntime's integer-kernel arithmetic);
    mode "fixed": the real multiplier as Q31 mult + shift (mcucomp.fixedpoint), rounded as `rounding` says:
    "double" (TFLite's MultiplyByQuantizedMultiplier, LiteRT's convolutions) or "single" (one round-half-up of the
    64-bit product, LiteRT's FULLY_CONNECTED); the kernel op that consumes it decides.

    Without div (or once an overflowing div is folded in), a finite scale at or above saturating_scale(qmin, qmax,
    zp) is stored as that bound: every nonzero accumulator saturates the output either way, and the fixed-point form
    keeps its left shift small (TFLite's double rounding shifts acc left in int32, wrapping for
    |acc| >= 2^(31 - left))."""

    scale: np.ndarray
    zp: int
    qmin: int
    qmax: int
    mode: str = "float"
    div: float = 0.0
    rounding: str = "double"

    def __post_init__(self):
        """Fold a divisor whose float32 steps could overflow (scale > 2^96: acc · scale passes the largest float32),
        then cap the scales at the saturating bound (class docstring)."""
        scale = np.asarray(self.scale, np.float64)
        if self.div and float(scale.max(initial=0.0)) > 2.0**96:
            self.scale = np.clip(scale / self.div, _F32_TINY, float(np.finfo(np.float32).max)).astype(np.float32)
            self.div = 0.0
        if not self.div:
            cap = saturating_scale(self.qmin, self.qmax, self.zp)
            scale = np.asarray(self.scale, np.float32)
            self.scale = np.where(np.isfinite(scale), np.minimum(scale, np.float32(cap)), scale).astype(np.float32)

    def plain(self) -> bool:
        """Float mode without div and every scale finite: (float)acc * scale is never NaN, so the kernels may inline
        the requantization without a NaN test (mcu_requant_plain)."""
        return self.mode == "float" and not self.div and bool(np.isfinite(np.asarray(self.scale, np.float32)).all())

    def params(self, key: str) -> tuple[list[tuple[str, object]], dict[str, np.ndarray]]:
        """The mcu_requant initializer fields and the constant arrays they point at."""
        scale = np.asarray(self.scale, dtype=np.float32).reshape(-1)
        fields = [("per_channel", int(scale.size > 1)), ("zp", self.zp), ("qmin", self.qmin), ("qmax", self.qmax),
                  ("single_round", int(self.rounding == "single"))]
        if self.mode == "fixed":
            real = scale.astype(np.float64) / (self.div if self.div else 1.0)
            pairs = [quantize_multiplier(float(r)) for r in real]
            arrays = {f"{key}_mult": np.array([m for m, _ in pairs], np.int32),
                      f"{key}_shift": np.array([s for _, s in pairs], np.int32)}
            return fields + [("scale", "NULL"), ("mult", ArrayRef(f"{key}_mult")),
                             ("shift", ArrayRef(f"{key}_shift")), ("div", 0.0)], arrays
        arrays = {f"{key}_scale": scale}
        return fields + [("scale", ArrayRef(f"{key}_scale")), ("mult", "NULL"), ("shift", "NULL"),
                         ("div", float(self.div))], arrays


def scalar(a) -> float | int:
    """The single value of a per-tensor quantization parameter."""
    return np.asarray(a).reshape(-1)[0].item()


#: The smallest normal float32: a requantization scale below it multiplies every int32 accumulator to below 2^-95,
#: which rounds to 0 as a smaller scale's product does.
_F32_TINY = float(np.finfo(np.float32).tiny)


def combined_scale(x_scale, w_scale, y_scale) -> np.ndarray:
    """The per-channel requantization scale (x_scale · w_scale[c]) / y_scale as float32: onnxruntime's order of
    float32 operations where its product and quotient stay normal float32 values (a nearly dead channel's 1e-11
    weight scale included); elsewhere (scales near the ends of the float32 range, such as 1e-20 · 1e-20 / 1e-30)
    the float64 quotient, held within [smallest normal float32, largest float32] (Requant caps the top at its
    saturating bound). Fixed mode quantizes this value (mcucomp.fixedpoint): a multiplier below about 2^-32 is
    zero there, as TFLite's QuantizeMultiplier makes it."""
    xs = np.float32(scalar(x_scale))
    ys = np.float32(scalar(y_scale))
    ws = np.asarray(w_scale, dtype=np.float32).reshape(-1)
    exact = np.float64(xs) * ws.astype(np.float64) / np.float64(ys)
    with np.errstate(over="ignore", under="ignore"):
        product = (xs * ws).astype(np.float32)
        in_order = (product / ys).astype(np.float32)
    f32 = np.finfo(np.float32)
    normal = ((np.abs(product) >= f32.tiny) & (np.abs(in_order) >= f32.tiny) & np.isfinite(product)
              & np.isfinite(in_order))
    fallback = np.clip(exact, _F32_TINY, float(f32.max)).astype(np.float32)
    return np.where(normal, in_order, fallback).astype(np.float32)
