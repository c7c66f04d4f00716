"""Float32 Tanh with mcu_math.h's mcu_tanhf."""

from __future__ import annotations

from .base import UnaryF32Op


class TanhF32(UnaryF32Op):
    """Tanh on float32 tensors."""

    name = "tanh_f32"
    onnx_ops = ("Tanh",)


OP = TanhF32()
