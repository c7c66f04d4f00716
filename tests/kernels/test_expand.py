"""expand (strided walk with zero strides) against onnxruntime (exact): rank growth, size-1 dims, int8, bool."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, rand


def test_expand_float_and_int8(tmp_path):
    rng = np.random.default_rng(110)
    x = rand(rng, 3, 1, 5)
    q = rng.integers(-128, 128, (1, 4, 1), dtype=np.int8)
    inits = {"grow": np.array([2, 3, 4, 5], np.int64), "same": np.array([3, 1, 5], np.int64),
             "ones": np.array([1, 1], np.int64), "q_to": np.array([2, 3, 4, 7], np.int64)}
    nodes = [helper.make_node("Expand", ["x", "grow"], ["grown"]),
             helper.make_node("Expand", ["x", "same"], ["same_shape"]),
             helper.make_node("Expand", ["x", "ones"], ["shape_of_ones"]),
             helper.make_node("Expand", ["q", "q_to"], ["q_grown"])]
    inputs = {"x": (np.float32, x.shape), "q": (np.int8, q.shape)}
    check_nodes(nodes, inputs, {"x": x, "q": q}, tmp_path, initializers=inits, exact=True)


def test_expand_bool(tmp_path):
    b = np.array([[True], [False]])
    node = helper.make_node("Expand", ["b", "to"], ["y"])
    check_nodes([node], {"b": (np.bool_, b.shape)}, {"b": b}, tmp_path,
                initializers={"to": np.array([2, 3], np.int64)}, exact=True)
