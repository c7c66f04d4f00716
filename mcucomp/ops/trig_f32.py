"""Float32 trigonometric and hyperbolic functions and their inverses (Tanh has its own kernel, tanh_f32)."""

from __future__ import annotations

from ._unary import CodedUnaryOp

#: ONNX op → (MCU_TRIG_* code in runtime_c/kernels/trig_f32.h, no parameters).
CODES = {op: (code, ()) for code, op in enumerate(
    ("Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh"))}


class TrigF32(CodedUnaryOp):
    """Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh and Atanh with mcu_math.h (correctly rounded in
    all measured cases, huge arguments of Sin/Cos/Tan included)."""

    name = "trig_f32"
    onnx_ops = tuple(CODES)
    codes = CODES


OP = TrigF32()
