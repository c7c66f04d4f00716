"""The float pooling, element-wise and activation loops on every QEMU core: a model chaining Clip, MaxPool's 2x2
loop (and the window loop), LeakyRelu, Add of same-shape and row-broadcast operands (each stride pair of a row),
Mul, Sub, Relu, the whole-plane average, Softmax, Sigmoid, Tanh and a Transpose, on sizes that leave tails after
every four-element unroll. The firmware's outputs equal the host build's bit for bit (the host build is checked
against onnxruntime first)."""

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
        helper.make_node("Transpose", ["biased"], ["turned"], perm=[0, 1, 3, 2]),  # rows of 5 words
        # compare-only layers on a second input that may hold NaN (float arithmetic on NaN gives the host's NaN
        # encoding, not the target's; comparisons and selections keep the input's bits)
        helper.make_node("MaxPool", ["raw"], ["peaks"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("MaxPool", ["raw"], ["peaks3"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Clip", ["raw", "", "hi"], ["capped"]),  # clamp_f32, the loop with every part
        helper.make_node("Clip", ["raw", "lo", "hi"], ["raw_clipped"]),
        helper.make_node("LeakyRelu", ["raw"], ["raw_leaky"], alpha=0.1),
    ]
    inputs = {"x": (np.float32, x_shape), "skip": (np.float32, pooled), "raw": (np.float32, x_shape)}
    outputs = {"relu": (np.float32, pooled), "probs": (np.float32, (1, 3)), "gate": (np.float32, pooled),
               "squashed": (np.float32, pooled), "turned": (np.float32, (1, 3, 7, 5)), "peaks": (np.float32, pooled),
               "peaks3": (np.float32, pooled), "capped": (np.float32, x_shape), "raw_clipped": (np.float32, x_shape),
               "raw_leaky": (np.float32, x_shape)}
    feeds = {"x": rand(rng, *x_shape) * 4, "skip": rand(rng, *pooled), "raw": rand(rng, *x_shape) * 4}
    paths = {"pooled": "maxpool_f32.float32_2x2", "peaks3": "maxpool_f32.float32", "mean": "avgpool_f32.global",
             "diff": "binary_f32.sub", "biased": "binary_f32.add_broadcast", "scaled": "binary_f32.mul_broadcast",
             "flipped": "binary_f32.sub_broadcast"}
    return make_model(nodes, inputs, outputs, inits), feeds, paths


def test_chain_against_onnxruntime(tmp_path):
    """The host build of the chain against onnxruntime, each layer on the path it is meant to take."""
    model, feeds, paths = _chain()
    check_model(model, feeds, tmp_path)
    taken = {layer["outputs"][0]: layer["kernel_path"]
             for layer in json.loads((tmp_path / "report.json").read_text())["layers"]}
    assert {name: taken[name] for name in paths} == paths


def _special_feeds() -> dict[str, np.ndarray]:
    """Two samples whose inputs hold special values between random ones, where the loops through float bits (cores
    without an FPU) and float comparisons could part: signed zeros, the clip bounds, subnormals and large values in
    every input; NaN (both signs), infinities and the largest floats in the compare-only layers' input."""
    rng = np.random.default_rng(51)
    big = np.finfo(np.float32).max
    finite = [0.0, -0.0, 6.0, -6.0, 1e-45, -1e-45, 3e-39, 1e30, -1e30]
    specials = {"x": finite, "skip": finite, "raw": finite + [np.nan, -np.nan, np.inf, -np.inf, big, -big]}
    feeds = {}
    for name, shape in (("x", (1, 3, 10, 14)), ("skip", (1, 3, 5, 7)), ("raw", (1, 3, 10, 14))):
        samples = rand(rng, 2, *shape) * 4
        flat = samples.reshape(2, -1)
        for i in range(2):
            at = rng.choice(flat.shape[1], flat.shape[1] // 3, replace=False)
            flat[i, at] = rng.choice(np.array(specials[name], np.float32), at.size)
        feeds[name] = samples
    return feeds


@pytest.mark.parametrize("board", CORE_BOARDS)
def test_chain_on_target_equals_host(board, tmp_path):
    """On each QEMU core (the FPU's loops on M4, M7, M33, M55; soft-float and the loops through float bits on M0+)
    the firmware's outputs equal the host build's bit for bit, on random inputs and on inputs full of special
    values."""
    model, _, _ = _chain()
    mcucomp.compile_model(model, tmp_path, name="m", board=board)
    for data in (None, _special_feeds()):
        result = verify_on_target(tmp_path, board, inputs=4, seed=0, timeout_s=120, data=data)
        assert result.status == "ok", result.detail
        assert result.mismatching and all(v == 0 for v in result.mismatching.values()), result.mismatching


def _squash_feeds() -> dict[str, np.ndarray]:
    """Two samples of 384 floats across every branch of mcu_sigmoidf and mcu_tanhf: the edges of their polynomials
    (1), of tanh's saturation (9.1) and of sigmoid's (104), the subnormal results of sigmoid below -87.3, signed
    zeros, subnormal inputs, infinities and NaN, between random values near 0 and over the whole range."""
    rng = np.random.default_rng(53)
    edges = np.float32([0.0, -0.0, 1.0, -1.0, 0.99999994, -0.99999994, 9.1, -9.1, 9.099999, -9.099999, 87.3,
                        -87.3, -87.4, -95.0, -103.97, -103.99, -104.0, 104.0, 1e-45, -1e-45, 3e-39, -3e-39, 1e30,
                        -1e30, np.inf, -np.inf, np.nan])
    samples = np.concatenate([np.resize(edges, 64), rng.uniform(-1, 1, 256), rng.uniform(-12, 12, 256),
                              rng.uniform(-110, 110, 192)]).astype(np.float32)
    return {"x": rng.permutation(samples).reshape(2, 1, 384)}


@pytest.mark.parametrize("board", CORE_BOARDS)
def test_sigmoid_tanh_on_target_equal_host(board, tmp_path):
    """Sigmoid and Tanh (mcu_sigmoidf, mcu_tanhf: separate multiplies and adds, one division) give the host build's
    bits on each QEMU core, soft-float included, on every branch of the two functions."""
    model = make_model([helper.make_node("Sigmoid", ["x"], ["gate"]), helper.make_node("Tanh", ["x"], ["squashed"])],
                       {"x": (np.float32, (1, 384))},
                       {"gate": (np.float32, (1, 384)), "squashed": (np.float32, (1, 384))})
    mcucomp.compile_model(model, tmp_path, name="m", board=board)
    result = verify_on_target(tmp_path, board, inputs=2, seed=0, timeout_s=120, data=_squash_feeds())
    assert result.status == "ok", result.detail
    assert result.mismatching and all(v == 0 for v in result.mismatching.values()), result.mismatching
