"""isinf_isnan_f32 against onnxruntime (exact): IsNaN, IsInf with each detect_positive/detect_negative choice."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes


def test_isinf_isnan(tmp_path):
    x = np.float32([np.inf, -np.inf, np.nan, -np.nan, 0.0, -0.0, 3.4e38, -1.0, 1e-45, 7.0, -np.inf]).reshape(1, 11)
    nodes = [
        helper.make_node("IsNaN", ["x"], ["nan"]),
        helper.make_node("IsInf", ["x"], ["inf"]),
        helper.make_node("IsInf", ["x"], ["pos"], detect_negative=0),
        helper.make_node("IsInf", ["x"], ["neg"], detect_positive=0),
        helper.make_node("IsInf", ["x"], ["none"], detect_positive=0, detect_negative=0),
    ]
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, opset=20, exact=True)
