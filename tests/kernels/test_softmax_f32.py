"""softmax_f32 against onnxruntime: every axis of a rank-4 tensor, and opset-11 coerced-2D semantics."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, rand


def test_softmax_axes(tmp_path):
    x = rand(np.random.default_rng(50), 2, 3, 5, 7) * 5
    nodes = [helper.make_node("Softmax", ["x"], [f"y{a + 4}"], axis=a) for a in range(-4, 4)]
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path)


def test_softmax_opset11_coerces_to_2d(tmp_path):
    """Opset 11 normalizes over all dims from `axis` on; the frontend's conversion to opset 13 must keep that."""
    x = rand(np.random.default_rng(51), 2, 3, 5) * 5
    check_nodes([helper.make_node("Softmax", ["x"], ["y"], axis=1)], {"x": (np.float32, x.shape)}, {"x": x},
                tmp_path, opset=11)
