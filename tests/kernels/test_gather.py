"""gather against onnxruntime (exact): every axis, negative runtime int64 indices, constant int32 indices, int8."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, rand


def test_gather_axes_and_index_kinds(tmp_path):
    rng = np.random.default_rng(150)
    x = rand(rng, 4, 3, 5)
    idx = np.array([[3, -1, 0], [-4, 2, 2]], np.int64)
    inits = {"const_idx": np.array([2, -2, 0], np.int32), "scalar_idx": np.array(-1, np.int64)}
    nodes = [helper.make_node("Gather", ["x", "idx"], ["axis0"]),
             helper.make_node("Gather", ["x", "const_idx"], ["axis1"], axis=1),
             helper.make_node("Gather", ["x", "const_idx"], ["axis_last"], axis=-1),
             helper.make_node("Gather", ["x", "scalar_idx"], ["scalar"], axis=2)]
    inputs = {"x": (np.float32, x.shape), "idx": (np.int64, idx.shape)}
    check_nodes(nodes, inputs, {"x": x, "idx": idx}, tmp_path, initializers=inits, exact=True)


def test_gather_int8_runtime_int32_indices(tmp_path):
    rng = np.random.default_rng(151)
    q = rng.integers(-128, 128, (6, 2), dtype=np.int8)
    idx = np.array([5, 0, -6, 3], np.int32)
    node = helper.make_node("Gather", ["q", "idx"], ["y"])
    inputs = {"q": (np.int8, q.shape), "idx": (np.int32, idx.shape)}
    check_nodes([node], inputs, {"q": q, "idx": idx}, tmp_path, exact=True)
