"""pad against onnxruntime (exact): constant with a value, reflect, edge, asymmetric and negative pads, int8."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, rand


def test_pad_modes(tmp_path):
    x = rand(np.random.default_rng(80), 1, 3, 4, 5)
    inits = {"p_const": np.array([0, 1, 2, 0, 0, 0, 1, 3], np.int64),
             "p_mirror": np.array([0, 0, 1, 2, 0, 0, 3, 1], np.int64),
             "p_crop": np.array([0, 0, -1, 2, 0, 1, 0, -2], np.int64),
             "v": np.float32(-2.5)}
    nodes = [helper.make_node("Pad", ["x", "p_const", "v"], ["constant"], mode="constant"),
             helper.make_node("Pad", ["x", "p_const"], ["constant_zero"]),
             helper.make_node("Pad", ["x", "p_mirror"], ["reflect"], mode="reflect"),
             helper.make_node("Pad", ["x", "p_mirror"], ["edge"], mode="edge"),
             helper.make_node("Pad", ["x", "p_crop", "v"], ["crop"])]
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, exact=True)


def test_pad_int8_with_axes(tmp_path):
    """Opset-18 axes input; a negative int8 constant value."""
    x = np.random.default_rng(81).integers(-128, 128, (2, 3, 5), dtype=np.int8)
    inits = {"p": np.array([1, 0, 2, 3], np.int64), "v": np.int8(-7), "axes": np.array([-1, 1], np.int64)}
    node = helper.make_node("Pad", ["x", "p", "v", "axes"], ["y"])
    check_nodes([node], {"x": (np.int8, x.shape)}, {"x": x}, tmp_path, initializers=inits, opset=18, exact=True)


def test_pad_wrap_and_int64(tmp_path):
    """Wrap with pads wider than the dim, next to a crop; 8-byte elements."""
    x = rand(np.random.default_rng(82), 2, 3, 4)
    k = np.arange(10, dtype=np.int64).reshape(2, 5)
    inits = {"p": np.array([1, -1, 6, 0, 2, 5], np.int64), "p2": np.array([1, 2, 0, 3], np.int64), "k": k}
    nodes = [helper.make_node("Pad", ["x", "p"], ["wrap"], mode="wrap"),
             helper.make_node("Pad", ["k", "p2"], ["k_wrap"], mode="wrap"),
             helper.make_node("Pad", ["k", "p2"], ["k_edge"], mode="edge")]
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, opset=19, exact=True)


def test_qdq_int8_pad_runs_on_codes(tmp_path):
    """DQ → Pad → Q with the output's parameters: the pad runs on int8 codes (constant mode pads with the code of its
    value: the zero point for 0, a saturated code for a value beyond the range), equal to onnxruntime and the
    integer reference; reflect and edge move codes."""
    from qmodels import QModel, check_qmodel

    qm = QModel(np.int8)
    nodes = []
    for i, (mode, value) in enumerate((("constant", None), ("constant", 0.37), ("constant", 100.0), ("reflect", None),
                                       ("edge", None))):
        scale, zp = 0.02, 11 - 9 * i
        _, xf = qm.act(f"p{i}x", (1, 3, 4, 5), scale, zp)
        inputs = [xf, qm.init(f"p{i}pads", np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64))]
        if value is not None:
            inputs.append(qm.init(f"p{i}v", np.float32(value)))
        qm.node("Pad", inputs, [f"p{i}_pad"], mode=mode)
        qm.out(f"p{i}_pad", f"p{i}_y", (1, 3, 7, 8), scale, zp)
        nodes.append(f"p{i}_pad_node")
    ops = check_qmodel(qm, tmp_path, ort_lsb=0)
    assert [ops[n] for n in nodes] == ["pad"] * len(nodes)
