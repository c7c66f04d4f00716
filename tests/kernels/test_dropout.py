"""dropout (inference, mask output) against onnxruntime (exact); Dropout without a mask disappears; training
dropout is refused with the constraint's message."""

from __future__ import annotations

import json

import numpy as np
import pytest
from onnx import helper

import mcucomp
from mcucomp.errors import UnsupportedError

from helpers import check_nodes, make_model, rand


def test_dropout_mask_and_removal(tmp_path):
    x = rand(np.random.default_rng(210), 2, 3, 5)
    inits = {"r": np.array(0.3, np.float32), "off": np.array(False), "on": np.array(True),
             "zero": np.array(0.0, np.float32)}
    nodes = [helper.make_node("Dropout", ["x"], ["y", "mask"]),
             helper.make_node("Dropout", ["x", "r", "off"], ["y_off"]),
             helper.make_node("Relu", ["x"], ["h"]),
             helper.make_node("Dropout", ["h", "zero", "on"], ["y_zero_ratio", "mask_zero_ratio"])]
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, exact=True)
    ops = [layer["op"] for layer in json.loads((tmp_path / "report.json").read_text())["layers"]]
    assert ops.count("dropout") == 2, ops


def test_training_dropout_is_unsupported(tmp_path):
    node = helper.make_node("Dropout", ["x", "r", "t"], ["y"])
    model = make_model([node], {"x": (np.float32, (4,))}, {"y": (np.float32, (4,))},
                       {"r": np.array(0.5, np.float32), "t": np.array(True)})
    with pytest.raises(UnsupportedError, match="training_mode must be absent or a constant false"):
        mcucomp.compile_model(model, tmp_path, name="m")
