"""transpose against onnxruntime (exact): default and explicit perms, rank 6, 1-sized dims, int8 and float."""

from __future__ import annotations

import itertools

import numpy as np
from onnx import helper

from helpers import check_nodes, rand


def test_transpose_all_rank4_perms(tmp_path):
    x = rand(np.random.default_rng(70), 2, 3, 1, 5)
    nodes = [helper.make_node("Transpose", ["x"], [f"y{i}"], perm=list(p))
             for i, p in enumerate(itertools.permutations(range(4)))]
    nodes.append(helper.make_node("Transpose", ["x"], ["y_default"]))
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, exact=True)


def test_transpose_rank6_int8(tmp_path):
    x = np.random.default_rng(71).integers(-128, 128, (2, 3, 2, 5, 3, 2), dtype=np.int8)
    node = helper.make_node("Transpose", ["x"], ["y"], perm=[5, 3, 1, 4, 0, 2])
    check_nodes([node], {"x": (np.int8, x.shape)}, {"x": x}, tmp_path, exact=True)
