"""Float32 Sigmoid with mcu_math.h's mcu_sigmoidf."""

from __future__ import annotations

from .base import UnaryF32Op


class SigmoidF32(UnaryF32Op):
    """Sigmoid on float32 tensors."""

    name = "sigmoid_f32"
    onnx_ops = ("Sigmoid",)


OP = SigmoidF32()
