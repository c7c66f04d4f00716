"""int8 multiplication with broadcasting in onnxruntime's QLinearMul arithmetic (MLAS MlasQLinearMul, x86 SSE2):
the exact integer product of the zero-point-free codes, times one float32 ratio a_scale·b_scale/y_scale, plus the
output zero point in float32, rounded half to even and saturated; or (`--requant fixed`, attrs mode 'fixed') TFLite's
int8 MUL (reference_integer_ops::Mul): MultiplyByQuantizedMultiplier of the int32 product, plus the zero point."""

from __future__ import annotations

import numpy as np

from ..fixedpoint import quantize_multiplier_tflite
from ..ir import Graph, Node
from ..fixedpoint import saturating_scale
from ..quant import combined_scale
from ._layout import all_images
from ._overlap import elementwise
from .base import KernelCall, KernelOp, OverlapMargin, broadcast_params


def mul_ratio(attrs: dict) -> np.float32:
    """a_scale·b_scale / y_scale: in float32 arithmetic (QLinearMul's and TFLite's mul.cc order) where that stays a
    normal float32, else from float64 (mcucomp.quant.combined_scale)."""
    return combined_scale(attrs["a_scale"], attrs["b_scale"], attrs["y_scale"])[0]


def tflite_mul_multiplier(attrs: dict) -> tuple[int, int]:
    """(mult, shift) of TFLite's mul.cc Prepare: QuantizeMultiplier of mul_ratio as a double, capped at the ratio
    that saturates every nonzero product (so the left shift of the product stays small)."""
    cap = saturating_scale(attrs["qmin"], attrs["qmax"], attrs["y_zp"])
    return quantize_multiplier_tflite(min(float(mul_ratio(attrs)), cap))


class MulS8(KernelOp):
    """attrs: mode ('qlinear' | 'fixed'), a/b/y scale and zp, qmin, qmax, y_off (128 when onnxruntime runs the output
    as uint8: its zero point enters the float sum in that type)."""

    name = "mul_s8"
    cost_paths = ("qlinear", "fixed")

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_mul_s8(params, a, b, y)."""
        a = node.attrs
        fixed = a.get("mode") == "fixed"
        mult, shift = tflite_mul_multiplier(a) if fixed else (0, 0)
        return KernelCall(
            self.name,
            [("bc", broadcast_params(g, node)), ("ratio", float(mul_ratio(a))), ("a_zp", a["a_zp"]),
             ("b_zp", a["b_zp"]), ("y_zp", a["y_zp"]), ("qmin", a["qmin"]), ("qmax", a["qmax"]), ("y_off", a["y_off"]),
             ("fixed", int(fixed)), ("mult", mult), ("shift", shift)],
            [node.inputs[0], node.inputs[1], node.outputs[0]],
        )

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """One loop over the output: a float multiply-add and rounding (qlinear) or MultiplyByQuantizedMultiplier
        (fixed), and a broadcast index step per element."""
        return node.attrs.get("mode", "qlinear"), {"calls": 1, "elements": g.tensors[node.outputs[0]].size}

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout when both inputs are runtime images of the output's rank: the broadcast walks the stored
        shapes, which the layout pass permutes alike."""
        return not any(g.tensors[i].is_const for i in node.inputs) and all_images(node, g)

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads a[ia] (ia == i when a is not broadcast) and b[ib], then writes y[i]."""
        return elementwise(node, g)


OP = MulS8()
