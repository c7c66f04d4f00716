"""The float pooling, element-wise and activation loops on every QEMU core: a model chaining Clip, MaxPool's 2x2
loop, LeakyRelu, Add of same-shape and row-broadcast operands (each stride pair of a row), Mul, Sub, Relu, the
whole-plane average, Softmax, Sigmoid and Tanh, on sizes that leave tails after every four-element unroll. The
firmware's outputs equal the host build's bit for bit (the host build is checked against onnxruntime first)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from onnx import helper

import mcucomp
from helpers import check_model, make_model, rand
from mcucomp.target.verify import verify_on_target
from target_boards import CORE_BOARDS


def _chain():
    """The model, its onnxruntime-checkable feeds, and the kernel path each output's layer must take."""
    rng = np.random.default_rng(50)
    x_shape, pooled = (1, 3, 10, 14), (1, 3, 5, 7)
    inits = {"lo": np.float32(0.0), "hi": np.float32(6.0), "bias": rand(rng, 1, 3, 1, 1),
             "col": rand(rng, 1, 1, 5, 1), "rows": rand(rng, 1, 3, 5, 1)}
    nodes = [
        helper.make_node("Clip", ["x", "lo", "hi"], ["clipped"]),  # clamp_f32, lo and hi
        helper.make_node("MaxPool", ["clipped"], ["pooled"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("LeakyRelu", ["pooled"], ["leaky"], alpha=0.1),  # clamp_f32, slope only
        helper.make_node("Sub", ["leaky", "skip"], ["diff"]),  # same shape: one flat row of 105
        helper.make_node("Add", ["diff", "bias"], ["biased"]),  # rows of 35, b broadcast along them
        helper.make_node("Mul", ["biased", "col"], ["scaled"]),  # rows of 7, b broadcast along them
        helper.make_node("Sub", ["rows", "scaled"], ["flipped"]),  # rows of 7, a broadcast along them
        helper.make_node("Relu", ["flipped"], ["relu"]),  # clamp_f32, lo only
        helper.make_node("GlobalAveragePool", ["flipped"], ["mean"]),
        helper.make_node("Flatten", ["mean"], ["flat"], axis=1),
        helper.make_node("Softmax", ["flat"], ["probs"], axis=-1),
        helper.make_node("Sigmoid", ["scaled"], ["gate"]),
        helper.make_node("Tanh", ["biased"], ["squashed"]),
    ]
    inputs = {"x": (np.float32, x_shape), "skip": (np.float32, pooled)}
    outputs = {"relu": (np.float32, pooled), "probs": (np.float32, (1, 3)), "gate": (np.float32, pooled),
               "squashed": (np.float32, pooled)}
    feeds = {"x": rand(rng, *x_shape) * 4, "skip": rand(rng, *pooled)}
    paths = {"pooled": "maxpool_f32.float32_2x2", "mean": "avgpool_f32.global", "diff": "binary_f32.sub",
             "biased": "binary_f32.add_broadcast", "scaled": "binary_f32.mul_broadcast",
             "flipped": "binary_f32.sub_broadcast"}
    return make_model(nodes, inputs, outputs, inits), feeds, paths


def test_chain_against_onnxruntime(tmp_path):
    """The host build of the chain against onnxruntime, each layer on the path it is meant to take."""
    model, feeds, paths = _chain()
    check_model(model, feeds, tmp_path)
    taken = {layer["outputs"][0]: layer["kernel_path"]
             for layer in json.loads((tmp_path / "report.json").read_text())["layers"]}
    assert {name: taken[name] for name in paths} == paths


@pytest.mark.parametrize("board", CORE_BOARDS)
def test_chain_on_target_equals_host(board, tmp_path):
    """On each QEMU core (the FPU's loops on M4, M7, M33, M55; soft-float on M0+) the firmware's outputs equal the
    host build's bit for bit."""
    model, _, _ = _chain()
    mcucomp.compile_model(model, tmp_path, name="m", board=board)
    result = verify_on_target(tmp_path, board, inputs=4, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and all(v == 0 for v in result.mismatching.values()), result.mismatching
