"""prelu_f32 against onnxruntime (exact): constant and runtime slopes, scalar, per-channel and full broadcasts."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, rand

# (x shape, slope shape): per channel (NCHW), scalar-like, full shape, trailing dim, rank-3 with size-1 dims
SHAPES = [((1, 3, 4, 5), (3, 1, 1)), ((2, 7), (1,)), ((2, 3, 5), (2, 3, 5)), ((4, 6), (6,)), ((1, 5, 1), (5, 1))]


def test_runtime_slopes(tmp_path):
    rng = np.random.default_rng(56)
    nodes, inputs, feeds = [], {}, {}
    for i, (xs, ss) in enumerate(SHAPES):
        inputs[f"x{i}"], inputs[f"s{i}"] = (np.float32, xs), (np.float32, ss)
        feeds[f"x{i}"], feeds[f"s{i}"] = rand(rng, *xs), rand(rng, *ss)
        nodes.append(helper.make_node("PRelu", [f"x{i}", f"s{i}"], [f"y{i}"]))
    feeds["x0"].flat[:3] = [0.0, -0.0, np.inf]
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)


def test_constant_slope(tmp_path):
    x = rand(np.random.default_rng(57), 1, 4, 3, 3)
    slope = np.float32([0.25, -1.0, 0.0, 2.0]).reshape(4, 1, 1)
    check_nodes([helper.make_node("PRelu", ["x", "slope"], ["y"])], {"x": (np.float32, x.shape)}, {"x": x},
                tmp_path, initializers={"slope": slope}, opset=16, exact=True)
