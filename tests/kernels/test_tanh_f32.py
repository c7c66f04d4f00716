"""tanh_f32 against onnxruntime, over the whole interesting range including saturation."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes


def test_tanh(tmp_path):
    x = np.concatenate([np.linspace(-10, 10, 995), [0.0, -0.0, 0.6249, 0.625, 9.2, -9.2, 1e-8]]).astype(np.float32)
    x = x[:1001].reshape(1, 7, 11, 13)
    check_nodes([helper.make_node("Tanh", ["x"], ["y"])], {"x": (np.float32, x.shape)}, {"x": x}, tmp_path)
