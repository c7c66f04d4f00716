"""fill against onnxruntime (exact): ConstantOfShape (default, float, int64 values), EyeLike (k, dtype)."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from helpers import check_nodes


def test_constant_of_shape_and_eyelike(tmp_path):
    """Graph outputs, so constant folding leaves them to the kernel."""
    x = np.zeros((3, 5), np.int32)
    inits = {"shp": np.array([2, 3, 1], np.int64)}
    nodes = [helper.make_node("ConstantOfShape", ["shp"], ["zeros"]),
             helper.make_node("ConstantOfShape", ["shp"], ["halves"],
                              value=helper.make_tensor("v", TensorProto.FLOAT, [1], [0.5])),
             helper.make_node("ConstantOfShape", ["shp"], ["big_ints"],
                              value=helper.make_tensor("v", TensorProto.INT64, [1], [-(2**40)])),
             helper.make_node("EyeLike", ["x"], ["eye"]),
             helper.make_node("EyeLike", ["x"], ["eye_up2_float"], k=2, dtype=TensorProto.FLOAT),
             helper.make_node("EyeLike", ["x"], ["eye_down1"], k=-1),
             helper.make_node("EyeLike", ["x"], ["eye_beyond"], k=7)]
    check_nodes(nodes, {"x": (np.int32, x.shape)}, {"x": x}, tmp_path, initializers=inits, exact=True)
