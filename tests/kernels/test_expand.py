"""expand (strided walk with zero strides) against onnxruntime (exact): rank growth, size-1 dims, int8, bool,
channels-last images, and an int8 QDQ Expand that moves codes."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import channels_last, check_nodes, layer_layouts, rand


def test_expand_float_and_int8(tmp_path):
    rng = np.random.default_rng(110)
    x = rand(rng, 3, 1, 5)
    q = rng.integers(-128, 128, (1, 4, 1), dtype=np.int8)
    inits = {"grow": np.array([2, 3, 4, 5], np.int64), "same": np.array([3, 1, 5], np.int64),
             "ones": np.array([1, 1], np.int64), "q_to": np.array([2, 3, 4, 7], np.int64)}
    nodes = [helper.make_node("Expand", ["x", "grow"], ["grown"]),
             helper.make_node("Expand", ["x", "same"], ["same_shape"]),
             helper.make_node("Expand", ["x", "ones"], ["shape_of_ones"]),
             helper.make_node("Expand", ["q", "q_to"], ["q_grown"])]
    inputs = {"x": (np.float32, x.shape), "q": (np.int8, q.shape)}
    check_nodes(nodes, inputs, {"x": x, "q": q}, tmp_path, initializers=inits, exact=True)


def test_expand_bool(tmp_path):
    b = np.array([[True], [False]])
    node = helper.make_node("Expand", ["b", "to"], ["y"])
    check_nodes([node], {"b": (np.bool_, b.shape)}, {"b": b}, tmp_path,
                initializers={"to": np.array([2, 3], np.int64)}, exact=True)


def test_expand_channels_last(tmp_path, monkeypatch):
    """4-D and 3-D int8 images channels-last, broadcast over the channels, over the spatial axes, over both."""
    channels_last(monkeypatch, "expand")
    rng = np.random.default_rng(111)
    x = rng.integers(-128, 128, (1, 1, 4, 5), dtype=np.int8)
    p = rng.integers(-128, 128, (2, 3, 1, 1), dtype=np.int8)
    w = rng.integers(-128, 128, (1, 1, 7), dtype=np.int8)
    inits = {"to_c": np.array([1, 6, 4, 5], np.int64), "to_hw": np.array([2, 3, 4, 5], np.int64),
             "to_all": np.array([3, 4, 4, 5], np.int64), "to_w": np.array([2, 3, 7], np.int64)}
    nodes = [helper.make_node("Expand", ["x", "to_c"], ["x_c"]), helper.make_node("Expand", ["p", "to_hw"], ["p_hw"]),
             helper.make_node("Expand", ["x", "to_all"], ["x_all"]), helper.make_node("Expand", ["w", "to_w"], ["w_w"])]
    inputs = {"x": (np.int8, x.shape), "p": (np.int8, p.shape), "w": (np.int8, w.shape)}
    check_nodes(nodes, inputs, {"x": x, "p": p, "w": w}, tmp_path, initializers=inits, exact=True)
    assert layer_layouts(tmp_path)["expand"] == {"nhwc"}


def test_qdq_expand_moves_codes(tmp_path):
    """DQ → Expand → Q: the expand broadcasts int8 codes; equal to the integer reference and within 1 LSB of
    onnxruntime."""
    from qmodels import QModel, check_qmodel

    qm = QModel(np.int8)
    _, af = qm.act("a", (1, 1, 4, 5), 0.03, -5)
    qm.node("Expand", [af, qm.init("to", np.array([1, 3, 4, 5], np.int64))], ["e"])
    qm.out("e", "ey", (1, 3, 4, 5), 0.03, -5)
    assert check_qmodel(qm, tmp_path)["e_node"] == "expand"
