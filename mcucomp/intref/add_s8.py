"""add_s8: QLinearAdd's arithmetic (two fmaf with the scale ratios and a fixed term, in onnxruntime's uint8 domain
where `offsets` say so), or the float dequantize, add, quantize sequence; with `--requant fixed`, TFLite's int8 ADD
(whatever the node says: the option decides); numpy broadcasting."""

from __future__ import annotations

import numpy as np

from ._add import add_codes

OPS = ("add_s8",)


def reference(node, g, mode, x_a, x_b) -> np.ndarray:
    """a + b requantized to y's parameters: TFLite's ADD in fixed mode, else per the node's mode ('qlinear' or
    'float')."""
    return add_codes(node.attrs, mode, x_a, x_b)
