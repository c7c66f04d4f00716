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


def test_quantize_runtime_scale_and_zero_point(tmp_path):
    rng = np.random.default_rng(102)
    scales = np.array([0.5, 0.031, 0.007], np.float32)
    x = np.stack([_floats(rng, float(s), 4 * 5) for s in scales], axis=1).reshape(4, 3, 5)
    feeds = {"x": x, "s": np.array(0.0123, np.float32), "zp": np.array(-3, np.int8), "s_axis": scales,
             "zp_axis": np.array([0, 17, 250], np.uint8)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["per_tensor"]),
             helper.make_node("QuantizeLinear", ["x", "s_axis", "zp_axis"], ["per_axis"], axis=1),
             helper.make_node("QuantizeLinear", ["x", "s"], ["no_zp"])]
    inputs = {n: (v.dtype, v.shape) for n, v in feeds.items()}
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)


@pytest.mark.parametrize("dtype,zp", [(np.int16, -300), (np.uint16, 40000)])
def test_quantize_16bit(dtype, zp, tmp_path):
    rng = np.random.default_rng(103)
    x = (_floats(rng, 100.0, 3 * 7 * 11) * np.float32(1.5)).reshape(3, 7, 11)
    feeds = {"x": x, "zp_in": np.array(zp, dtype)}
    inits = {"s": np.float32(0.75), "zp": np.array(zp, dtype), "s_axis": np.linspace(0.1, 2, 7).astype(np.float32),
             "zp_axis": np.arange(7).astype(dtype) * 1000}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["const_params"]),
             helper.make_node("QuantizeLinear", ["x", "s", "zp_in"], ["runtime_zp"]),
             helper.make_node("QuantizeLinear", ["x", "s_axis", "zp_axis"], ["per_axis"], axis=-2)]
    inputs = {n: (v.dtype, v.shape) for n, v in feeds.items()}
    check_nodes(nodes, inputs, feeds, tmp_path, initializers=inits, opset=21, exact=True)


@pytest.mark.parametrize("axis,block", [(1, 2), (0, 3), (2, 4)])
def test_quantize_blocked(axis, block, tmp_path):
    rng = np.random.default_rng(104)
    dims = [3, 5, 4]
    # onnxruntime's blocked path converts x / scale to int before saturating: keep it inside int32 (no 1e30, inf)
    x = _floats(rng, 0.02, 66)[6:].reshape(dims)
    rng.shuffle(x.reshape(-1))
    sdims = list(dims)
    sdims[axis] = -(-dims[axis] // block)
    feeds = {"x": x, "s": rng.uniform(0.005, 0.05, sdims).astype(np.float32)}
    inits = {"zp": rng.integers(-20, 20, sdims, dtype=np.int8), "zpu": rng.integers(100, 150, sdims, dtype=np.uint8)}
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y_s8"], axis=axis, block_size=block),
             helper.make_node("QuantizeLinear", ["x", "s", "zpu"], ["y_u8"], axis=axis, block_size=block)]
    inputs = {n: (v.dtype, v.shape) for n, v in feeds.items()}
    check_nodes(nodes, inputs, feeds, tmp_path, initializers=inits, opset=21, exact=True)
