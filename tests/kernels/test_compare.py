"""compare against onnxruntime (exact): Equal/Greater/GreaterOrEqual/Less/LessOrEqual, every dtype, broadcasting."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes

OPS = ("Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual")
TYPES = [np.float32, np.float64, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def _values(rng, dtype, shape) -> np.ndarray:
    """Few distinct values, so equal pairs are frequent; floats include signed zeros, infinities and NaN."""
    if np.issubdtype(dtype, np.floating):
        pool = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan], dtype)
    else:
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, 0, 1, info.max // 2], dtype)
    return rng.choice(pool, size=shape)


def test_compare_every_type(tmp_path):
    rng = np.random.default_rng(50)
    nodes, inputs, feeds = [], {}, {}
    for dtype in TYPES:
        t = np.dtype(dtype).name
        for i, (sa, sb) in enumerate([((4, 6), (4, 6)), ((2, 1, 5), (3, 1))]):
            a, b = f"a_{t}{i}", f"b_{t}{i}"
            inputs[a], inputs[b] = (dtype, sa), (dtype, sb)
            feeds[a], feeds[b] = _values(rng, dtype, sa), _values(rng, dtype, sb)
            nodes += [helper.make_node(op, [a, b], [f"{op}_{t}{i}"]) for op in OPS]
    check_nodes(nodes, inputs, feeds, tmp_path, opset=16)


def test_equal_bool(tmp_path):
    rng = np.random.default_rng(51)
    a, b = rng.random((3, 4)) < 0.5, rng.random((4,)) < 0.5
    check_nodes([helper.make_node("Equal", ["a", "b"], ["y"])], {"a": (np.bool_, a.shape), "b": (np.bool_, b.shape)},
                {"a": a, "b": b}, tmp_path)
