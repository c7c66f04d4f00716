"""onehot (exact) against onnxruntime, and against the ONNX reference where onnxruntime lacks the type combination:
every axis, negative and out-of-range indices, float, int32 and int64 indices."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, check_nodes_with_reference


def test_onehot_axes_and_index_types(tmp_path):
    idx = np.array([[1, -1, 9], [0, -10, 4]], np.int64)   # 9 and -10 are out of range: all-off rows
    fidx = np.array([2.0, -3.0, 5.0], np.float32)
    inits = {"depth": np.array(5, np.int64), "fdepth": np.array(6.0, np.float32),
             "fvals": np.array([-1.5, 2.0], np.float32), "ivals": np.array([3, 7], np.int32)}
    nodes = [helper.make_node("OneHot", ["idx", "depth", "fvals"], ["last"]),
             helper.make_node("OneHot", ["idx", "depth", "fvals"], ["first"], axis=0),
             helper.make_node("OneHot", ["idx", "depth", "fvals"], ["middle"], axis=-2),
             helper.make_node("OneHot", ["fidx", "fdepth", "ivals"], ["from_float"])]
    inputs = {"idx": (np.int64, idx.shape), "fidx": (np.float32, fidx.shape)}
    check_nodes_with_reference(nodes, inputs, {"idx": idx, "fidx": fidx}, tmp_path, initializers=inits)


def test_onehot_runtime_values_int32_indices(tmp_path):
    idx = np.array([3, 0, -2], np.int32)
    vals = np.array([0.25, -4.0], np.float32)
    node = helper.make_node("OneHot", ["idx", "depth", "vals"], ["y"], axis=0)
    inputs = {"idx": (np.int32, idx.shape), "vals": (np.float32, vals.shape)}
    check_nodes([node], inputs, {"idx": idx, "vals": vals}, tmp_path, initializers={"depth": np.array(4, np.int32)},
                exact=True)
