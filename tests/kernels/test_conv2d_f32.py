"""conv2d_f32 against onnxruntime: weights and bias as runtime tensors or initializers; 1-D, 2-D and 3-D; groups,
dilations, strides, asymmetric pads, auto_pad; a fused Relu."""

from __future__ import annotations

import numpy as np
from onnx import helper

from mcucomp.pipeline import lower_model
from float_cases import weighted_nodes
from helpers import check_model, check_nodes, infer_outputs, make_model, rand

# (input shape, weight shape, bias, attrs)
CASES = [
    ((1, 3, 7, 6), (4, 3, 3, 3), True, dict(pads=[1, 0, 2, 1], strides=[2, 1])),
    ((2, 4, 5, 5), (6, 2, 2, 3), True, dict(group=2, dilations=[2, 1])),
    ((1, 3, 5, 7), (3, 1, 3, 3), False, dict(group=3, auto_pad="SAME_LOWER", strides=[2, 2])),
    ((1, 2, 6, 5), (3, 2, 2, 2), True, dict(auto_pad="SAME_UPPER")),
    ((1, 5, 4, 4), (2, 5, 1, 1), False, dict(auto_pad="VALID")),
    ((2, 3, 9), (4, 3, 3), True, dict(pads=[2, 1], strides=[2], dilations=[2])),
    ((1, 2, 4, 5, 6), (3, 2, 2, 3, 2), True, dict(pads=[1, 0, 1, 0, 1, 1], strides=[2, 1, 2], dilations=[1, 2, 1])),
    ((1, 4, 3, 3, 3), (4, 1, 3, 1, 3), False, dict(group=4, auto_pad="SAME_UPPER")),
]


def _conv_nodes(rng, runtime: bool):
    """One Conv per case (the bias has c_out = w.shape[0] elements)."""
    return weighted_nodes("Conv", CASES, lambda w, attrs: w[0], rng, runtime)


def test_conv_runtime_weights(tmp_path):
    nodes, inputs, feeds, inits = _conv_nodes(np.random.default_rng(30), runtime=True)
    check_nodes(nodes, inputs, feeds, tmp_path, inits)


def test_conv_constant_weights(tmp_path):
    nodes, inputs, feeds, inits = _conv_nodes(np.random.default_rng(31), runtime=False)
    check_nodes(nodes, inputs, feeds, tmp_path, inits)


def test_conv_runtime_weights_fused_relu(tmp_path):
    """A Relu after a 3-D conv with runtime weights folds into the kernel's clamp."""
    rng = np.random.default_rng(32)
    x_shape, w_shape, _, attrs = CASES[6]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], **attrs), helper.make_node("Relu", ["c"], ["y"])]
    inputs = {"x": (np.float32, x_shape), "w": (np.float32, w_shape)}
    model = make_model(nodes, inputs, {"y": (np.float32, infer_outputs(nodes, inputs)["y"][1])})
    assert [n.op for n in lower_model(model).graph.nodes] == ["conv2d_f32"]
    out = check_model(model, {"x": rand(rng, *x_shape), "w": rand(rng, *w_shape)}, tmp_path)
    assert (out["y"] == 0).any() and (out["y"] > 0).any()
