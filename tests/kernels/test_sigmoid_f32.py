"""sigmoid_f32 against onnxruntime, over the whole interesting range including saturation."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes


def test_sigmoid(tmp_path):
    x = np.concatenate([np.linspace(-20, 20, 997), [0.0, -0.0, 88.0, -88.0, 1e-8]]).astype(np.float32)
    x = x[:1001].reshape(1, 7, 11, 13)
    check_nodes([helper.make_node("Sigmoid", ["x"], ["y"])], {"x": (np.float32, x.shape)}, {"x": x}, tmp_path)
