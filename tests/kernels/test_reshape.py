"""reshape (alias) and copy against onnxruntime (exact), including outputs that alias inputs or other outputs."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers import check_model, infer_outputs, make_model, rand

SHAPE = {"s": np.array([3, -1], np.int64), "ax": np.array([0, 2], np.int64)}


@pytest.mark.parametrize("io", ["arena", "caller"])
def test_views_chain_and_graph_output_aliasing(io, tmp_path):
    """Reshape→Relu→Flatten→Unsqueeze→Squeeze; graph outputs that are views of an input or of another output."""
    x = rand(np.random.default_rng(90), 1, 3, 2, 5)
    nodes = [
        helper.make_node("Reshape", ["x", "s"], ["view_of_input"]),
        helper.make_node("Flatten", ["x"], ["flat"], axis=2),
        helper.make_node("Relu", ["flat"], ["act"]),
        helper.make_node("Unsqueeze", ["act", "ax"], ["act4"]),
        helper.make_node("Squeeze", ["act4", "ax"], ["view_of_output"]),
        helper.make_node("Identity", ["x"], ["identity_of_input"]),
    ]
    inputs = {"x": (np.float32, x.shape)}
    outputs = {n: v for n, v in infer_outputs(nodes, inputs, SHAPE).items() if not n.startswith("act")}
    ours = check_model(make_model(nodes, inputs, outputs, SHAPE), {"x": x}, tmp_path, exact=True, io=io)
    assert ours["view_of_input"].shape == (3, 10)
