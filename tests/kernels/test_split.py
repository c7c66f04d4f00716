"""split against onnxruntime (exact): split input, num_outputs with an uneven last chunk, negative axis, int8."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers import check_model, check_nodes, infer_outputs, make_model, rand


@pytest.mark.parametrize("io", ["arena", "caller"])
def test_split_opset13_split_input(io, tmp_path):
    """Output pointer arrays hold arena and caller-owned buffers alike."""
    rng = np.random.default_rng(140)
    x = rand(rng, 2, 9, 3)
    q = rng.integers(-128, 128, (5, 2), dtype=np.int8)
    inits = {"parts": np.array([1, 5, 3], np.int64)}
    nodes = [helper.make_node("Split", ["x", "parts"], ["a", "b", "c"], axis=1),
             helper.make_node("Relu", ["b"], ["b_relu"]),
             helper.make_node("Split", ["x"], ["h0", "h1"], axis=0),
             helper.make_node("Split", ["q"], ["q0", "q1"], axis=-1)]
    inputs = {"x": (np.float32, x.shape), "q": (np.int8, q.shape)}
    outputs = {n: v for n, v in infer_outputs(nodes, inputs, inits).items() if n != "b"}
    check_model(make_model(nodes, inputs, outputs, inits), {"x": x, "q": q}, tmp_path, exact=True, io=io)


def test_split_opset18_num_outputs_uneven(tmp_path):
    x = rand(np.random.default_rng(141), 3, 7)
    node = helper.make_node("Split", ["x"], ["p0", "p1", "p2", "p3"], axis=-1, num_outputs=4)
    check_nodes([node], {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, opset=18, exact=True)
