"""clamp_f32 against onnxruntime (exact): Relu, Clip (inputs, one-sided, opset-6 attributes), LeakyRelu."""

from __future__ import annotations

import json

import numpy as np
from onnx import helper

from helpers import check_nodes, rand


def _data(shape):
    """Random values with exact zeros, negative zeros and values on the clip bounds."""
    x = rand(np.random.default_rng(40), *shape) * 4
    x.flat[:4] = [0.0, -0.0, 6.0, -1.0]
    return x


def test_relu_clip_leakyrelu(tmp_path):
    x = _data((1, 7, 3, 5))
    nodes = [
        helper.make_node("Relu", ["x"], ["relu"]),
        helper.make_node("Clip", ["x", "lo", "hi"], ["clip"]),
        helper.make_node("Clip", ["x", "", "hi"], ["clip_max"]),
        helper.make_node("Clip", ["x", "lo"], ["clip_min"]),
        helper.make_node("LeakyRelu", ["x"], ["leaky"], alpha=0.1),
        helper.make_node("LeakyRelu", ["x"], ["leaky_default"]),
    ]
    inits = {"lo": np.float32(-1.0), "hi": np.float32(6.0)}
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, exact=True)


def test_clip_opset6_attributes(tmp_path):
    """Opset-6 Clip keeps min/max as attributes until the frontend converts the model to opset 13."""
    x = _data((2, 3))
    node = helper.make_node("Clip", ["x"], ["y"], min=-0.5, max=0.5)
    check_nodes([node], {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, opset=6, exact=True)


def test_unrolled_tails(tmp_path):
    """Each loop (Relu; Clip with both bounds; LeakyRelu; the loop with every part, taken by a one-sided Clip), as its
    cost path names it, on 1 to 9 elements, around the four-element unroll, with NaN, infinities and signed zeros in
    the data (finite only for the one-sided Clip: onnxruntime clips -inf to the lowest float there, the kernel keeps
    it)."""
    rng = np.random.default_rng(41)
    nodes, inputs, feeds = [], {}, {}
    specials = [np.nan, -np.inf, np.inf, -0.0, 0.0, -2.0, 7.0, 6.0, -1.0]
    for n in range(1, 10):
        x = rand(rng, 1, n) * 4
        x[0, : n] = np.roll(specials, n)[:n] if n % 2 else x[0, : n]
        inputs[f"x{n}"], feeds[f"x{n}"] = (np.float32, x.shape), x
        inputs[f"f{n}"], feeds[f"f{n}"] = (np.float32, x.shape), np.where(np.isinf(x), np.float32(-5.0), x)
        nodes += [helper.make_node("Relu", [f"x{n}"], [f"relu{n}"]),
                  helper.make_node("Clip", [f"x{n}", "lo", "hi"], [f"clip{n}"]),
                  helper.make_node("LeakyRelu", [f"x{n}"], [f"leaky{n}"], alpha=0.2),
                  helper.make_node("Clip", [f"f{n}", "", "hi"], [f"clip_max{n}"])]
    inits = {"lo": np.float32(0.0), "hi": np.float32(6.0)}
    check_nodes(nodes, inputs, feeds, tmp_path, initializers=inits, exact=True)
    loops = {"relu": "lower_bound", "clip": "both_bounds", "leaky": "slope", "clip_max": "general"}
    for layer in json.loads((tmp_path / "report.json").read_text())["layers"]:
        assert layer["kernel_path"] == "clamp_f32." + loops[layer["outputs"][0].rstrip("0123456789")]
