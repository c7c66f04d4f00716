"""dequantize_linear against onnxruntime, bit for bit: int8/uint8/int32, per tensor and per axis."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers import check_nodes


def test_dequantize(tmp_path):
    rng = np.random.default_rng(110)
    feeds = {"q8": rng.integers(-128, 128, (2, 5, 3), dtype=np.int8),
             "u8": rng.integers(0, 256, (7, 3), dtype=np.uint8),
             "q32": rng.integers(-2**24, 2**24, (3, 5), dtype=np.int32)}
    inits = {"s": np.float32(0.0173), "zp8": np.int8(-9), "zpu8": np.uint8(128), "zp32": np.int32(0),
             "s_axis": np.array([0.1, 0.02, 0.3, 1e-3, 7.0], np.float32),
             "zp_axis": np.array([0, 3, -4, 127, -128], np.int8)}
    nodes = [helper.make_node("DequantizeLinear", ["q8", "s", "zp8"], ["y_s8"]),
             helper.make_node("DequantizeLinear", ["u8", "s", "zpu8"], ["y_u8"]),
             helper.make_node("DequantizeLinear", ["q32", "s", "zp32"], ["y_s32"]),
             helper.make_node("DequantizeLinear", ["q8", "s_axis", "zp_axis"], ["y_axis"], axis=1),
             helper.make_node("DequantizeLinear", ["u8", "s"], ["y_no_zp"])]
    inputs = {n: (v.dtype, v.shape) for n, v in feeds.items()}
    check_nodes(nodes, inputs, feeds, tmp_path, initializers=inits, exact=True)


def test_dequantize_runtime_scale_and_zero_point(tmp_path):
    rng = np.random.default_rng(111)
    feeds = {"q8": rng.integers(-128, 128, (2, 5, 3), dtype=np.int8), "s": np.array(0.0173, np.float32),
             "zp": np.array(-9, np.int8), "s_axis": np.array([0.1, 0.02, 0.3, 1e-3, 7.0], np.float32),
             "zp_axis": np.array([0, 3, -4, 127, -128], np.int8)}
    nodes = [helper.make_node("DequantizeLinear", ["q8", "s", "zp"], ["per_tensor"]),
             helper.make_node("DequantizeLinear", ["q8", "s_axis", "zp_axis"], ["per_axis"], axis=1),
             helper.make_node("DequantizeLinear", ["q8", "s"], ["no_zp"])]
    inputs = {n: (v.dtype, v.shape) for n, v in feeds.items()}
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)


@pytest.mark.parametrize("dtype", [np.int16, np.uint16])
def test_dequantize_16bit(dtype, tmp_path):
    rng = np.random.default_rng(112)
    info = np.iinfo(dtype)
    q = rng.integers(info.min, info.max, (4, 3, 5), dtype=dtype, endpoint=True)
    q.flat[:2] = [info.min, info.max]
    feeds = {"q": q, "zp_in": np.array(info.max // 3, dtype)}
    inits = {"s": np.float32(0.0173), "zp": np.array(info.min // 2 + 7, dtype),
             "s_axis": np.array([0.1, 3e-5, 7.0], np.float32), "zp_axis": np.array([info.min, 0, info.max], dtype)}
    nodes = [helper.make_node("DequantizeLinear", ["q", "s", "zp"], ["const_params"]),
             helper.make_node("DequantizeLinear", ["q", "s", "zp_in"], ["runtime_zp"]),
             helper.make_node("DequantizeLinear", ["q", "s_axis", "zp_axis"], ["per_axis"], axis=1)]
    inputs = {n: (v.dtype, v.shape) for n, v in feeds.items()}
    check_nodes(nodes, inputs, feeds, tmp_path, initializers=inits, opset=21, exact=True)


@pytest.mark.parametrize("axis,block", [(1, 2), (0, 3), (2, 4)])
def test_dequantize_blocked(axis, block, tmp_path):
    rng = np.random.default_rng(113)
    dims = [3, 5, 4]
    sdims = list(dims)
    sdims[axis] = -(-dims[axis] // block)
    feeds = {"q8": rng.integers(-128, 128, dims, dtype=np.int8), "u8": rng.integers(0, 256, dims, dtype=np.uint8),
             "s": rng.uniform(0.005, 0.05, sdims).astype(np.float32)}
    inits = {"zp": rng.integers(-20, 20, sdims, dtype=np.int8), "zpu": rng.integers(100, 150, sdims, dtype=np.uint8)}
    nodes = [helper.make_node("DequantizeLinear", ["q8", "s", "zp"], ["y_s8"], axis=axis, block_size=block),
             helper.make_node("DequantizeLinear", ["u8", "s", "zpu"], ["y_u8"], axis=axis, block_size=block)]
    inputs = {n: (v.dtype, v.shape) for n, v in feeds.items()}
    check_nodes(nodes, inputs, feeds, tmp_path, initializers=inits, opset=21, exact=True)
