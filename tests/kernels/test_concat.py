"""concat against onnxruntime (exact): every axis, uneven chunks, constants, int8 data, 8 inputs."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, rand


def test_concat_axes(tmp_path):
    rng = np.random.default_rng(60)
    inputs, feeds, nodes = {}, {}, []
    for axis in range(4):
        names = []
        for j, extent in enumerate((1, 3, 2)):
            shp = [2, 3, 5, 4]
            shp[axis] = extent
            inputs[f"x{axis}_{j}"] = (np.float32, tuple(shp))
            feeds[f"x{axis}_{j}"] = rand(rng, *shp)
            names.append(f"x{axis}_{j}")
        nodes.append(helper.make_node("Concat", names, [f"y{axis}"], axis=axis - 4 if axis % 2 else axis))
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)


def test_concat_int8_eight_inputs_with_constant(tmp_path):
    rng = np.random.default_rng(61)
    inputs = {f"x{j}": (np.int8, (1, j + 1, 3)) for j in range(7)}
    feeds = {n: rng.integers(-128, 128, s, dtype=np.int8) for n, (_, s) in inputs.items()}
    node = helper.make_node("Concat", list(inputs) + ["k"], ["y"], axis=1)
    check_nodes([node], inputs, feeds, tmp_path, initializers={"k": np.arange(6, dtype=np.int8).reshape(1, 2, 3)},
                exact=True)
