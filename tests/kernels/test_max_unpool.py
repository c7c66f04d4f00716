"""max_unpool, exact: after a MaxPool's Indices (onnxruntime), and with output_shape, where the ONNX reference (the
node tests' semantics) places the unpooled tensor at the output's origin while onnxruntime does not."""

from __future__ import annotations

import numpy as np
from onnx import helper
from onnx.reference import ReferenceEvaluator

import mcucomp
import mcucomp.host
from helpers import assert_close, check_nodes, make_model, rand

# (input shape, pooling attrs)
CASES = [
    ((1, 2, 6, 7), dict(kernel_shape=[2, 3], strides=[2, 2])),
    ((2, 3, 9), dict(kernel_shape=[3], strides=[3])),
    ((1, 1, 4, 5, 4), dict(kernel_shape=[2, 2, 2], strides=[2, 3, 2])),
]


def test_max_unpool_after_max_pool(tmp_path):
    rng = np.random.default_rng(80)
    nodes, inputs, feeds = [], {}, {}
    for i, (shp, attrs) in enumerate(CASES):
        inputs[f"x{i}"], feeds[f"x{i}"] = (np.float32, shp), rand(rng, *shp)
        nodes += [helper.make_node("MaxPool", [f"x{i}"], [f"v{i}", f"i{i}"], **attrs),
                  helper.make_node("MaxUnpool", [f"v{i}", f"i{i}"], [f"y{i}"], **attrs)]
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)


def test_max_unpool_output_shape(tmp_path):
    """A larger output_shape: the 4x4 unpooled planes sit at the origin of 5x6 ones."""
    x = np.arange(1, 9, dtype=np.float32).reshape(1, 2, 2, 2)
    idx = np.array([0, 3, 9, 15, 16, 21, 26, 31], np.int64).reshape(1, 2, 2, 2)
    node = helper.make_node("MaxUnpool", ["x", "i", "shape"], ["y"], kernel_shape=[2, 2], strides=[2, 2])
    model = make_model([node], {"x": (np.float32, x.shape), "i": (np.int64, idx.shape)},
                       {"y": (np.float32, (1, 2, 5, 6))}, {"shape": np.array([1, 2, 5, 6], np.int64)}, opset=22)
    mcucomp.compile_model(model, tmp_path, name="m")
    got = mcucomp.host.load(tmp_path).run({"x": x, "i": idx})["y"]
    assert_close(got, ReferenceEvaluator(model).run(None, {"x": x, "i": idx})[0], "y", exact=True)


def test_max_unpool_skips_out_of_range(tmp_path):
    """Indices outside the unpooled tensor (an error in ONNX) write nothing."""
    x = np.array([[[1, 2, 3]]], np.float32)
    idx = np.array([[[5, -1, 6]]], np.int64)
    model = make_model([helper.make_node("MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2], strides=[2])],
                       {"x": (np.float32, (1, 1, 3)), "i": (np.int64, (1, 1, 3))}, {"y": (np.float32, (1, 1, 6))})
    mcucomp.compile_model(model, tmp_path, name="m")
    y = mcucomp.host.load(tmp_path).run({"x": x, "i": idx})["y"]
    assert y.tolist() == [[[0, 0, 0, 0, 0, 1]]]
