"""depth_to_space (6-D walk) against onnxruntime (exact): DepthToSpace DCR and CRD, SpaceToDepth, uint8 data."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, rand


def test_depth_to_space_modes(tmp_path):
    rng = np.random.default_rng(130)
    x = rand(rng, 2, 8, 3, 5)
    s = rng.integers(0, 256, (1, 3, 4, 6), dtype=np.uint8)
    nodes = [helper.make_node("DepthToSpace", ["x"], ["dcr"], blocksize=2),
             helper.make_node("DepthToSpace", ["x"], ["crd"], blocksize=2, mode="CRD"),
             helper.make_node("SpaceToDepth", ["s"], ["s2d"], blocksize=2)]
    inputs = {"x": (np.float32, x.shape), "s": (np.uint8, s.shape)}
    check_nodes(nodes, inputs, {"x": x, "s": s}, tmp_path, exact=True)
