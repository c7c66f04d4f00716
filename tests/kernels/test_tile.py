"""tile (two walk levels per dim) against onnxruntime (exact): rank 4 with every dim repeated, repeats of 1."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, rand


def test_tile_rank4_int32_and_float(tmp_path):
    rng = np.random.default_rng(120)
    k = rng.integers(-1000, 1000, (2, 3, 1, 5), dtype=np.int32)
    x = rand(rng, 3, 4)
    inits = {"r4": np.array([2, 3, 4, 2], np.int64), "r_one": np.array([1, 1], np.int64),
             "r_outer": np.array([3, 1], np.int64), "r_inner": np.array([1, 2], np.int64)}
    nodes = [helper.make_node("Tile", ["k", "r4"], ["k_tiled"]),
             helper.make_node("Tile", ["x", "r_one"], ["x_same"]),
             helper.make_node("Tile", ["x", "r_outer"], ["x_rows"]),
             helper.make_node("Tile", ["x", "r_inner"], ["x_cols"])]
    inputs = {"k": (np.int32, k.shape), "x": (np.float32, x.shape)}
    check_nodes(nodes, inputs, {"k": k, "x": x}, tmp_path, initializers=inits, exact=True)
