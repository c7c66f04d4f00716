"""quantize_linear against onnxruntime, bit for bit: random floats, exact .5 ties, saturation, per axis."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers import check_nodes


def _floats(rng, scale: float, n: int) -> np.ndarray:
    """Random floats around the int8 range plus exact half-way ties (k + 0.5) * scale and out-of-range values."""
    ties = (rng.integers(-300, 300, n // 4) + 0.5).astype(np.float32) * np.float32(scale)
    wide = rng.uniform(-300, 300, n // 2).astype(np.float32) * np.float32(scale)
    tiny = rng.standard_normal(n - n // 4 - n // 2).astype(np.float32) * np.float32(scale)
    x = np.concatenate([ties, wide, tiny])
    x[:6] = [0.0, -0.0, 1e30, -1e30, np.inf, -np.inf]
    return x


@pytest.mark.parametrize("dtype,zp", [(np.int8, -3), (np.uint8, 131), (np.int8, 0)])
def test_quantize_per_tensor(dtype, zp, tmp_path):
    rng = np.random.default_rng(100)
    scale = np.float32(0.0123)
    x = _floats(rng, float(scale), 40000).reshape(8, 5000)
    inits = {"scale": scale, "zp": np.array(zp, dtype)}
    node = helper.make_node("QuantizeLinear", ["x", "scale", "zp"], ["y"])
    check_nodes([node], {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, exact=True)


def test_quantize_per_axis_and_default_zero_point(tmp_path):
    rng = np.random.default_rng(101)
    scales = np.array([0.5, 0.031, 0.007, 1.25, 0.2], np.float32)
    x = np.stack([_floats(rng, float(s), 3 * 7) for s in scales], axis=1).reshape(3, 5, 7)
    inits = {"scale": scales, "zp": np.array([0, -5, 7, 127, -128], np.int8), "s1": np.float32(0.05)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "scale", "zp"], ["per_axis"], axis=1),
             helper.make_node("QuantizeLinear", ["x", "s1"], ["uint8_default_zp"])]
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, exact=True)
