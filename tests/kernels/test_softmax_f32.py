"""softmax_f32 against onnxruntime: Softmax, LogSoftmax and Hardmax on every axis of a rank-4 tensor, and the
opset-11 coerced-2D semantics of all three."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers import check_nodes, rand

OPS = ("Softmax", "LogSoftmax", "Hardmax")


@pytest.mark.parametrize("op", OPS)
def test_softmax_family_axes(tmp_path, op):
    x = rand(np.random.default_rng(50), 2, 3, 5, 7) * 5
    x[1, 2, 3, :3] = x[1, 2, 3, 3]  # ties: Hardmax marks the first largest
    nodes = [helper.make_node(op, ["x"], [f"y{a + 4}"], axis=a) for a in range(-4, 4)]
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, exact=op == "Hardmax")


@pytest.mark.parametrize("op", OPS)
def test_softmax_family_opset11_coerces_to_2d(tmp_path, op):
    """Opset 11 normalizes over all dims from `axis` on; the frontend's conversion to opset 13 must keep that."""
    x = rand(np.random.default_rng(51), 2, 3, 5) * 5
    check_nodes([helper.make_node(op, ["x"], ["y"], axis=1)], {"x": (np.float32, x.shape)}, {"x": x},
                tmp_path, opset=11, exact=op == "Hardmax")
