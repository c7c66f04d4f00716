"""concat against onnxruntime (exact): every axis, uneven chunks, constants, int8 data, many inputs."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import channels_last, check_model, check_nodes, layer_layouts, make_model, rand


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


def test_concat_int8_many_inputs_with_constant(tmp_path):
    """Thirteen inputs (more than any fixed argument list would take): caller-owned graph inputs, an arena tensor
    and a constant."""
    rng = np.random.default_rng(61)
    inputs = {f"x{j}": (np.int8, (1, j % 4 + 1, 3)) for j in range(11)}
    feeds = {n: rng.integers(-128, 128, s, dtype=np.int8) for n, (_, s) in inputs.items()}
    nodes = [helper.make_node("Relu", ["x0"], ["r"]),
             helper.make_node("Concat", list(inputs) + ["r", "k"], ["y"], axis=1)]
    k = np.arange(6, dtype=np.int8).reshape(1, 2, 3)
    model = make_model(nodes, inputs, {"y": (np.int8, (1, 29, 3))}, {"k": k}, opset=14)
    check_model(model, feeds, tmp_path, exact=True, io="caller")


def test_concat_channels_last(tmp_path, monkeypatch):
    """Every axis of 4-D and 3-D int8 images channels-last: the copy runs along the stored position of the axis."""
    channels_last(monkeypatch, "concat")
    rng = np.random.default_rng(62)
    inputs, feeds, nodes = {}, {}, []
    for base in ([2, 3, 5, 4], [2, 3, 5]):
        for axis in range(len(base)):
            names = []
            for j, extent in enumerate((1, 3, 2)):
                shp = list(base)
                shp[axis] = extent
                name = f"x{len(base)}_{axis}_{j}"
                inputs[name] = (np.int8, tuple(shp))
                feeds[name] = rng.integers(-128, 128, shp).astype(np.int8)
                names.append(name)
            nodes.append(helper.make_node("Concat", names, [f"y{len(base)}_{axis}"],
                                          axis=axis - len(base) if axis % 2 else axis))
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)
    assert layer_layouts(tmp_path)["concat"] == {"nhwc"}
