"""dynamic_quantize_linear against onnxruntime, bit for bit: mixed-sign, one-sided and all-zero ranges, odd shapes."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers import check_nodes


def _data(kind: str, rng: np.random.Generator) -> np.ndarray:
    """Input of one range kind, shape (3, 7, 5) or (1, 13)."""
    x = rng.standard_normal((3, 7, 5)).astype(np.float32) * np.float32(4)
    if kind == "positive":  # min adjusted to 0: zero point 0
        return np.abs(x) + np.float32(0.5)
    if kind == "negative":  # max adjusted to 0: zero point 255
        return -np.abs(x) - np.float32(0.5)
    if kind == "zeros":  # empty range: scale 1 (onnxruntime; the spec divides 0 by 0)
        return np.zeros((1, 13), np.float32)
    if kind == "ties":  # x / scale lands on k + 0.5 for many elements (range [-2.55, 2.55]: scale 0.02)
        x = ((rng.integers(-127, 127, (1, 13)) + 0.5) * 0.02).astype(np.float32)
        x[0, :2] = [-2.55, 2.55]
        return x
    return x


@pytest.mark.parametrize("kind", ["mixed", "positive", "negative", "zeros", "ties"])
def test_dynamic_quantize_linear(kind, tmp_path):
    x = _data(kind, np.random.default_rng(120))
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "y_scale", "y_zero_point"])
    ours = check_nodes([node], {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, exact=True)
    assert ours["y"].shape == x.shape and ours["y_scale"].shape == () and ours["y_zero_point"].shape == ()
