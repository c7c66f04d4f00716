"""trilu against onnxruntime (exact): upper and lower, k positive, negative and beyond the matrix, batches, int64."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, rand


def test_trilu_k_and_batches(tmp_path):
    rng = np.random.default_rng(190)
    x = rand(rng, 2, 4, 6)
    k = rng.integers(-99, 99, (3, 5), dtype=np.int64)
    inits = {f"k{v}": np.array(v, np.int64) for v in (2, -1, 9, -9)}
    nodes = [helper.make_node("Trilu", ["x"], ["upper"]),
             helper.make_node("Trilu", ["x", "k2"], ["upper_k2"]),
             helper.make_node("Trilu", ["x", "k-1"], ["lower_km1"], upper=0),
             helper.make_node("Trilu", ["x", "k9"], ["upper_beyond"]),
             helper.make_node("Trilu", ["x", "k-9"], ["lower_beyond"], upper=0),
             helper.make_node("Trilu", ["k", "k-1"], ["int_upper"]),
             helper.make_node("Trilu", ["k", "k2"], ["int_lower"], upper=0)]
    inputs = {"x": (np.float32, x.shape), "k": (np.int64, k.shape)}
    check_nodes(nodes, inputs, {"x": x, "k": k}, tmp_path, initializers=inits, opset=14, exact=True)
