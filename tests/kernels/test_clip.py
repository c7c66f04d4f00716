"""clip against onnxruntime (exact): integer and float types, runtime or constant bounds, either bound absent."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, check_nodes_with_reference


def _clip_nodes(x: str, lo: str, hi: str) -> list:
    """Clip with both bounds, min only, max only (empty-string input), and min > max."""
    return [helper.make_node("Clip", [x, lo, hi], [f"{x}_both"]), helper.make_node("Clip", [x, lo], [f"{x}_lo"]),
            helper.make_node("Clip", [x, "", hi], [f"{x}_hi"]), helper.make_node("Clip", [x, hi, lo], [f"{x}_swap"])]


def test_clip_runtime_bounds(tmp_path):
    """Bounds fed at run time (onnxruntime's types; float32 NaN stays NaN)."""
    rng = np.random.default_rng(80)
    nodes, inputs, feeds = [], {}, {}
    for dtype in (np.float32, np.float64, np.int8, np.uint8, np.int32, np.int64, np.uint64):
        t = np.dtype(dtype).name
        x = (rng.standard_normal((3, 7)) * 50).astype(dtype) if dtype != np.uint64 else rng.integers(0, 99, (3, 7),
                                                                                                      dtype=dtype)
        if dtype == np.float32:
            x[0, :3] = [np.nan, np.inf, -np.inf]
        feeds.update({f"x_{t}": x, f"lo_{t}": np.array(5, dtype), f"hi_{t}": np.array(40, dtype)})
        inputs.update({f"x_{t}": (dtype, x.shape), f"lo_{t}": (dtype, ()), f"hi_{t}": (dtype, ())})
        nodes += _clip_nodes(f"x_{t}", f"lo_{t}", f"hi_{t}")
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)


def test_clip_constant_bounds_int16(tmp_path):
    """Constant bounds (onnxruntime has no int16 Clip: the ONNX reference checks it)."""
    x = np.arange(-20, 20, dtype=np.int16).reshape(4, 10) * 1000
    check_nodes_with_reference(_clip_nodes("x", "lo", "hi"), {"x": (np.int16, x.shape)}, {"x": x}, tmp_path,
                               initializers={"lo": np.array(-3000, np.int16), "hi": np.array(12345, np.int16)})
