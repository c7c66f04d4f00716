"""maxpool_f32 against onnxruntime (exact): pads, strides, dilations, ceil_mode, 1-D, 3-D, global, the Indices output
(row- and column-major), int8 and uint8 data."""

from __future__ import annotations

import json

import numpy as np
from onnx import helper

from helpers import channels_last, check_nodes, layer_layouts, rand

CASES = [
    ((1, 3, 7, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 2, 1])),
    ((2, 5, 6, 5), dict(kernel_shape=[2, 3], strides=[2, 2], ceil_mode=1)),
    ((1, 7, 9, 8), dict(kernel_shape=[2, 2], dilations=[2, 3], pads=[1, 1, 0, 1])),
    ((1, 3, 1, 1), dict(kernel_shape=[1, 1])),
    ((1, 5, 9), dict(kernel_shape=[3], strides=[2], pads=[1, 2], dilations=[2])),
    ((1, 2, 5, 6, 4), dict(kernel_shape=[2, 3, 2], strides=[2, 1, 2], pads=[1, 0, 1, 0, 1, 1], dilations=[1, 2, 1])),
    ((2, 1, 4, 4, 5), dict(kernel_shape=[3, 2, 2], strides=[2, 2, 2], ceil_mode=1)),
]


def test_maxpool_cases(tmp_path):
    rng = np.random.default_rng(20)
    nodes, inputs, feeds = [], {}, {}
    for i, (shp, attrs) in enumerate(CASES):
        inputs[f"x{i}"] = (np.float32, shp)
        feeds[f"x{i}"] = rand(rng, *shp)
        nodes.append(helper.make_node("MaxPool", [f"x{i}"], [f"y{i}"], **attrs))
    shapes = [(1, 3, 5, 7), (1, 5, 9)]
    for j, shp in enumerate(shapes):
        inputs[f"g{j}"] = (np.float32, shp)
        feeds[f"g{j}"] = rand(rng, *shp)
        nodes.append(helper.make_node("GlobalMaxPool", [f"g{j}"], [f"gy{j}"]))
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)


def test_maxpool_all_negative_with_padding(tmp_path):
    """Padding must never win over negative inputs."""
    x = -np.abs(rand(np.random.default_rng(21), 1, 3, 4, 5)) - 1
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    check_nodes([node], {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, exact=True)


def test_maxpool_indices_and_8bit(tmp_path):
    """Indices in both storage orders (ties, from a small value range, keep the first tap), for float32, int8 and
    uint8 data, 1-D to 3-D."""
    rng = np.random.default_rng(22)
    shapes = {1: (2, 3, 11), 2: (1, 2, 7, 6), 3: (1, 2, 5, 4, 6)}
    windows = {1: dict(kernel_shape=[3], strides=[2], pads=[1, 1]),
               2: dict(kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 1]),
               3: dict(kernel_shape=[2, 2, 3], strides=[1, 2, 2], pads=[0, 1, 1, 1, 0, 1])}
    nodes, inputs, feeds = [], {}, {}
    for dtype in (np.float32, np.int8, np.uint8):
        for rank, shp in shapes.items():
            for order in (0, 1):
                name = f"x_{np.dtype(dtype).name}_{rank}_{order}"
                inputs[name] = (dtype, shp)
                feeds[name] = rng.integers(0 if dtype == np.uint8 else -4, 5, shp).astype(dtype)
                nodes.append(helper.make_node("MaxPool", [name], [f"y{name}", f"i{name}"], storage_order=order,
                                              **windows[rank]))
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)


def test_maxpool_channels_last(tmp_path, monkeypatch):
    """1-D and 2-D int8 pools (no Indices) run channels-last, pixel by pixel, each channel's window c_in elements
    apart; pads never win, ties in a small value range. float32 and uint8 pools stay channels-first."""
    channels_last(monkeypatch, "maxpool_f32")
    rng = np.random.default_rng(23)
    nodes, inputs, feeds = [], {}, {}
    for i, (shp, attrs) in enumerate(CASES[:5]):
        inputs[f"x{i}"], feeds[f"x{i}"] = (np.int8, shp), rng.integers(-4, 5, shp).astype(np.int8)
        nodes.append(helper.make_node("MaxPool", [f"x{i}"], [f"y{i}"], **attrs))
    inputs["g"] = (np.float32, (2, 3, 5, 7))
    feeds["g"] = rand(rng, 2, 3, 5, 7)
    nodes.append(helper.make_node("GlobalMaxPool", ["g"], ["gy"]))
    inputs["u"], feeds["u"] = (np.uint8, (1, 3, 5, 7)), rng.integers(0, 5, (1, 3, 5, 7)).astype(np.uint8)
    nodes.append(helper.make_node("MaxPool", ["u"], ["uy"], kernel_shape=[2, 2]))
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)
    assert layer_layouts(tmp_path)["maxpool_f32"] == {"nhwc", "onnx"}


def test_maxpool_2x2_inside(tmp_path):
    """Float 2x2 windows at stride 2 inside the input take the loop without bounds checks: output rows of 1 to 9
    pixels, odd input sizes (the last row or column unread), a bottom pad that no window reaches, -inf and ties in
    the windows, exact against onnxruntime; a ceil_mode pool whose last window crosses the edge and one with
    Indices keep the window loop."""
    rng = np.random.default_rng(24)
    nodes, inputs, feeds = [], {}, {}
    shapes = [(1, 2, 2 * (n % 3 + 1) + n % 2, 2 * n + (n + 1) % 2) for n in range(1, 10)]
    for i, shp in enumerate(shapes):
        x = rand(rng, *shp)
        x[0, 0, :2, :2] = [[-np.inf, -3.0], [-3.0, -np.inf]]
        x[0, 1, :2, :2] = [[1.0, 1.0], [-0.0, 1.0]]
        inputs[f"x{i}"], feeds[f"x{i}"] = (np.float32, shp), x
        nodes.append(helper.make_node("MaxPool", [f"x{i}"], [f"y{i}"], kernel_shape=[2, 2], strides=[2, 2]))
    nodes += [helper.make_node("MaxPool", ["x1"], ["padded"], kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 1, 0]),
              helper.make_node("MaxPool", ["x2"], ["ceil"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
              helper.make_node("MaxPool", ["x3"], ["with_values", "with_indices"], kernel_shape=[2, 2],
                               strides=[2, 2])]
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)
    paths = {layer["outputs"][0]: layer["kernel_path"]
             for layer in json.loads((tmp_path / "report.json").read_text())["layers"]}
    fast = [f"y{i}" for i in range(len(shapes))] + ["padded"]
    assert {paths[name] for name in fast} == {"maxpool_f32.float32_2x2"}
    assert (paths["ceil"], paths["with_values"]) == ("maxpool_f32.float32", "maxpool_f32.float32_indices")
