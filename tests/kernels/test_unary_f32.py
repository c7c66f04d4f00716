"""unary_f32 against onnxruntime, bit for bit: every op, default and explicit attributes, special values."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, rand

SPECIAL = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, -1.0, 0.2, -0.2, 3.0, -3.0, 1e-40, 3e38, -3e38]


def _data(shape, scale=4.0):
    """Random values with exact halves (rounding ties), zeros of both signs, threshold values and extremes."""
    x = rand(np.random.default_rng(51), *shape) * scale
    x.flat[:len(SPECIAL)] = SPECIAL
    return x


def test_all_ops(tmp_path):
    x = _data((3, 7, 5))
    nodes = [helper.make_node(op, ["x"], [op.lower()]) for op in
             ("Abs", "Neg", "Floor", "Ceil", "Round", "Sign", "Reciprocal", "HardSigmoid", "HardSwish",
              "ThresholdedRelu", "Shrink")]
    nodes += [
        helper.make_node("HardSigmoid", ["x"], ["hardsigmoid_ab"], alpha=0.3, beta=0.4),
        helper.make_node("ThresholdedRelu", ["x"], ["thresholdedrelu_a"], alpha=0.25),
        helper.make_node("Shrink", ["x"], ["shrink_soft"], lambd=1.5, bias=1.5),
        helper.make_node("Sqrt", ["ax"], ["sqrt"]),
    ]
    inputs = {"x": (np.float32, x.shape), "ax": (np.float32, x.shape)}
    check_nodes(nodes, inputs, {"x": x, "ax": np.abs(x)}, tmp_path, opset=14, exact=True)


def test_softsign(tmp_path):
    """Softsign divides once (x / (1 + |x|), correctly rounded); onnxruntime multiplies by a rounded reciprocal."""
    x = _data((2, 3, 5))
    ours = check_nodes([helper.make_node("Softsign", ["x"], ["y"])], {"x": (np.float32, x.shape)}, {"x": x}, tmp_path)
    np.testing.assert_array_equal(ours["y"], x / (np.float32(1) + np.abs(x)))


def test_nan_and_infinities(tmp_path):
    """NaN and +-inf go through like onnxruntime (Softsign, whose inf / inf is NaN there, gives the limit +-1)."""
    x = np.float32([np.nan, np.inf, -np.inf, 0.0, -0.0, 2.0, -7.0]).reshape(1, 7)
    ops = ("Abs", "Neg", "Floor", "Ceil", "Round", "Sqrt", "Reciprocal", "ThresholdedRelu", "Shrink", "HardSigmoid")
    check_nodes([helper.make_node(op, ["x"], [op.lower()]) for op in ops], {"x": (np.float32, x.shape)}, {"x": x},
                tmp_path, exact=True)
