"""Quantization helpers shared by the int8 lowering passes and int8 kernel ops."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .fixedpoint import quantize_multiplier
from .ops.base import ArrayRef

QRANGE = {"int8": (-128, 127), "uint8": (0, 255)}


@dataclass
class Requant:
    """acc → out: v = acc·scale[c] (then v / div when div != 0), clamp to [qmin, qmax] after adding zp.

    mode "float": float32 multiply (and divide), round half to even (onnxruntime's integer-kernel arithmetic);
    mode "fixed": the real multiplier as Q31 mult + shift (mcucomp.fixedpoint), rounded as `rounding` says:
    "double" (TFLite's MultiplyByQuantizedMultiplier, LiteRT's convolutions) or "single" (one round-half-up of the
    64-bit product, LiteRT's FULLY_CONNECTED); the kernel op that consumes it decides."""

    scale: np.ndarray
    zp: int
    qmin: int
    qmax: int
    mode: str = "float"
    div: float = 0.0
    rounding: str = "double"

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


def combined_scale(x_scale, w_scale, y_scale) -> np.ndarray:
    """onnxruntime's per-channel output scale: float32 (x_scale · w_scale[c]) / y_scale, in that order."""
    xs = np.float32(scalar(x_scale))
    ys = np.float32(scalar(y_scale))
    ws = np.asarray(w_scale, dtype=np.float32).reshape(-1)
    return ((xs * ws).astype(np.float32) / ys).astype(np.float32)
