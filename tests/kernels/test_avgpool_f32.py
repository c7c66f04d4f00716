"""avgpool_f32 against onnxruntime: pads, strides, dilations, ceil_mode, count_include_pad, 1-D, 3-D and global
pooling; LpPool and GlobalLpPool."""

from __future__ import annotations

import json

import numpy as np
from onnx import helper

import mcucomp
import mcucomp.host

from helpers import check_model, check_nodes, make_model, rand

# (input shape, attrs)
CASES = [
    ((1, 3, 7, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 2, 1], count_include_pad=1)),
    ((1, 3, 7, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 2, 1], count_include_pad=0)),
    ((2, 5, 6, 5), dict(kernel_shape=[2, 3], strides=[2, 2], ceil_mode=1, count_include_pad=1, pads=[0, 1, 0, 1])),
    ((2, 5, 6, 5), dict(kernel_shape=[2, 3], strides=[2, 2], ceil_mode=1)),
    ((1, 7, 1, 1), dict(kernel_shape=[1, 1])),
    ((1, 5, 9), dict(kernel_shape=[4], strides=[2], pads=[2, 1], count_include_pad=1)),
    ((1, 2, 9, 8), dict(kernel_shape=[3, 2], dilations=[2, 3], pads=[2, 1, 1, 1], count_include_pad=1)),
    ((1, 2, 9, 8), dict(kernel_shape=[3, 2], dilations=[2, 3], strides=[2, 1], ceil_mode=1)),
    ((1, 2, 6, 6), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1)),
    ((1, 2, 5, 6, 7), dict(kernel_shape=[2, 3, 3], strides=[2, 2, 1], pads=[1, 0, 1, 0, 1, 1], count_include_pad=1)),
    ((2, 1, 6, 5, 4), dict(kernel_shape=[3, 2, 2], dilations=[2, 1, 2], strides=[1, 2, 1], pads=[1, 1, 0, 1, 0, 1])),
]

# (input shape, attrs) for LpPool
LP_CASES = [
    ((1, 3, 7, 6), dict(kernel_shape=[3, 3], p=2, strides=[2, 1], pads=[1, 0, 1, 1])),
    ((1, 2, 8), dict(kernel_shape=[3], p=1, pads=[1, 1])),
    ((1, 2, 5, 6), dict(kernel_shape=[2, 2], p=3, auto_pad="SAME_UPPER")),
    ((1, 2, 4, 5, 3), dict(kernel_shape=[2, 2, 2], p=2, dilations=[1, 2, 1])),
]


def test_averagepool_cases(tmp_path):
    rng = np.random.default_rng(10)
    nodes, inputs, feeds = [], {}, {}
    for i, (shp, attrs) in enumerate(CASES):
        inputs[f"x{i}"] = (np.float32, shp)
        feeds[f"x{i}"] = rand(rng, *shp)
        nodes.append(helper.make_node("AveragePool", [f"x{i}"], [f"y{i}"], **attrs))
    check_nodes(nodes, inputs, feeds, tmp_path, opset=19)


def test_global_average_pool(tmp_path):
    rng = np.random.default_rng(11)
    shapes = [(1, 3, 5, 7), (2, 7, 1, 1), (1, 5, 9)]
    nodes = [helper.make_node("GlobalAveragePool", [f"x{i}"], [f"y{i}"]) for i in range(len(shapes))]
    inputs = {f"x{i}": (np.float32, s) for i, s in enumerate(shapes)}
    outputs = {f"y{i}": (np.float32, s[:2] + (1,) * (len(s) - 2)) for i, s in enumerate(shapes)}
    check_model(make_model(nodes, inputs, outputs), {f"x{i}": rand(rng, *s) for i, s in enumerate(shapes)}, tmp_path)



def test_lppool(tmp_path):
    """LpPool with p = 1, 2, 3 (1-D to 3-D) and GlobalLpPool."""
    rng = np.random.default_rng(12)
    nodes, inputs, feeds = [], {}, {}
    for i, (shp, attrs) in enumerate(LP_CASES):
        inputs[f"x{i}"] = (np.float32, shp)
        feeds[f"x{i}"] = rand(rng, *shp)
        nodes.append(helper.make_node("LpPool", [f"x{i}"], [f"y{i}"], **attrs))
    inputs["g"] = (np.float32, (1, 3, 4, 5))
    feeds["g"] = rand(rng, 1, 3, 4, 5)
    nodes += [helper.make_node("GlobalLpPool", ["g"], ["g2"]), helper.make_node("GlobalLpPool", ["g"], ["g3"], p=3)]
    check_nodes(nodes, inputs, feeds, tmp_path, opset=18)


def test_whole_plane_sum_order(tmp_path):
    """Whole-plane windows (GlobalAveragePool, and an AveragePool whose window is the plane) take the straight sum per
    plane: planes of 1 to 9 elements around its four-element unroll, 3x3 and 8x8 equal bit for bit the sum from zero
    in row-major order divided by the plane's size (the window loop's order, which the bound against onnxruntime in
    test_global_average_pool rests on)."""
    rng = np.random.default_rng(13)
    shapes = [(1, 3, 1, n) for n in range(1, 10)] + [(2, 5, 8, 8), (1, 4, 3, 3)]
    nodes = [helper.make_node("GlobalAveragePool", [f"x{i}"], [f"y{i}"]) for i in range(len(shapes))]
    nodes.append(helper.make_node("AveragePool", ["w"], ["yw"], kernel_shape=[5, 7], strides=[5, 7]))
    inputs = {f"x{i}": (np.float32, s) for i, s in enumerate(shapes)} | {"w": (np.float32, (1, 6, 5, 7))}
    outputs = {f"y{i}": (np.float32, s[:2] + (1, 1)) for i, s in enumerate(shapes)} | {"yw": (np.float32, (1, 6, 1, 1))}
    feeds = {name: rand(rng, *shape) * 10 for name, (_, shape) in inputs.items()}
    mcucomp.compile_model(make_model(nodes, inputs, outputs), tmp_path, name="m")
    layers = json.loads((tmp_path / "report.json").read_text())["layers"]
    assert {layer["kernel_path"] for layer in layers} == {"avgpool_f32.global"}
    ours = mcucomp.host.load(tmp_path).run(feeds)
    for name, x in feeds.items():
        planes = x.reshape(x.shape[0] * x.shape[1], -1)
        sums = np.zeros(len(planes), np.float32)
        for column in planes.T:
            sums = sums + column  # float32 + float32: one rounding per element, in row-major order
        want = sums / np.float32(planes.shape[1])
        got = ours["yw" if name == "w" else "y" + name[1:]].reshape(-1)
        assert got.tobytes() == want.tobytes(), name
