"""Float32 element-wise functions that need no transcendental function: Abs, Neg, Floor, Ceil, Round, Sign,
Reciprocal, Sqrt, Softsign, HardSigmoid, HardSwish, ThresholdedRelu, Shrink."""

from __future__ import annotations

from ._unary import CodedUnaryOp

_NONE = ((None, 0.0), (None, 0.0))
#: ONNX op → (MCU_UNARY_* code in runtime_c/kernels/unary_f32.h, (alpha, beta) attributes with ONNX defaults).
CODES = {
    "Abs": (0, _NONE), "Neg": (1, _NONE), "Floor": (2, _NONE), "Ceil": (3, _NONE), "Round": (4, _NONE),
    "Sign": (5, _NONE), "Reciprocal": (6, _NONE), "Sqrt": (7, _NONE), "Softsign": (8, _NONE),
    "HardSigmoid": (9, (("alpha", 0.2), ("beta", 0.5))),
    "HardSwish": (10, ((None, 1.0 / 6.0), (None, 0.5))),
    "ThresholdedRelu": (11, (("alpha", 1.0), (None, 0.0))),
    "Shrink": (12, (("lambd", 0.5), ("bias", 0.0))),
}


class UnaryF32(CodedUnaryOp):
    """Cheap element-wise float32 functions (one IEEE operation or a comparison each, no libm)."""

    name = "unary_f32"
    onnx_ops = tuple(CODES)
    codes = CODES
    param_names = ("alpha", "beta")


OP = UnaryF32()
