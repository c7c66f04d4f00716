"""dequantize_linear against onnxruntime, bit for bit: int8/uint8/int32, per tensor and per axis."""

from __future__ import annotations

import numpy as np
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
