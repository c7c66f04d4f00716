"""add_s8: QLinearAdd's arithmetic (two fmaf with the scale ratios and a fixed term, in onnxruntime's uint8 domain
where `offsets` say so), the float dequantize, add, quantize sequence, or TFLite's int8 ADD (the lowering's choice
with `--requant fixed`, or where QLinearAdd's float32 ratios would overflow); numpy broadcasting."""

from __future__ import annotations

import numpy as np

from ._add import add_codes

OPS = ("add_s8",)


def reference(node, g, mode, x_a, x_b) -> np.ndarray:
    """a + b requantized to y's parameters per the node's mode ('fixed', 'qlinear' or 'float')."""
    return add_codes(node.attrs, x_a, x_b)
