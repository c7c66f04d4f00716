"""gather_nd against onnxruntime (exact): full and partial index tuples, batch_dims 1, negative indices, int32."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, rand


def test_gather_nd_tuples_and_batch_dims(tmp_path):
    rng = np.random.default_rng(180)
    x = rand(rng, 2, 3, 4)
    k = rng.integers(-1000, 1000, (2, 3, 4), dtype=np.int32)
    full = np.array([[1, 2, 3], [0, -1, 0]], np.int64)
    part = np.array([[[1, 0]], [[0, 2]], [[-1, -3]]], np.int64)
    batch = np.array([[[2], [0]], [[-1], [1]]], np.int64)
    nodes = [helper.make_node("GatherND", ["x", "full"], ["elements"]),
             helper.make_node("GatherND", ["x", "part"], ["rows"]),
             helper.make_node("GatherND", ["k", "batch"], ["batched"], batch_dims=1)]
    inputs = {"x": (np.float32, x.shape), "k": (np.int32, k.shape), "full": (np.int64, full.shape),
              "part": (np.int64, part.shape), "batch": (np.int64, batch.shape)}
    feeds = {"x": x, "k": k, "full": full, "part": part, "batch": batch}
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)
