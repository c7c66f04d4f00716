"""slice (strided walk) against onnxruntime (exact): negative and clamped starts/ends, negative steps, axes."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, rand

BIG = np.iinfo(np.int64).max


def test_slice_float_every_form(tmp_path):
    """Default axes and steps, negative axes, clamped bounds, reversal, steps that do not divide the extent."""
    x = rand(np.random.default_rng(100), 4, 7, 5)
    cases = {
        "plain": ([1, 2], [3, 6], None, None),
        "default_axes": ([0, 1, 1], [4, 7, 4], None, None),
        "neg_axes": ([-3], [-1], [-1], None),
        "clamped": ([-100, 2], [BIG, 100], [0, 2], None),
        "reverse_all": ([-1, -1, -1], [-BIG, -BIG, -BIG], [0, 1, 2], [-1, -1, -1]),
        "stepped": ([6, 0], [0, 5], [1, 2], [-3, 2]),
        "inner_reverse": ([4], [0], [2], [-2]),
    }
    inits, nodes = {}, []
    for name, (starts, ends, axes, steps) in cases.items():
        names = ["x", f"{name}_s", f"{name}_e"]
        inits[f"{name}_s"], inits[f"{name}_e"] = np.array(starts, np.int64), np.array(ends, np.int64)
        for label, value in (("a", axes), ("t", steps)):
            if value is not None:
                inits[f"{name}_{label}"] = np.array(value, np.int64)
            names.append(f"{name}_{label}" if value is not None else "")
        while not names[-1]:
            names.pop()
        nodes.append(helper.make_node("Slice", names, [name]))
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, exact=True)


def test_slice_int8_and_int64(tmp_path):
    """1- and 8-byte elements, a size-1 dim, a constant data input."""
    x8 = np.random.default_rng(101).integers(-128, 128, (3, 1, 9), dtype=np.int8)
    inits = {"s": np.array([1, -2], np.int64), "e": np.array([3, -9], np.int64), "a": np.array([0, -1], np.int64),
             "t": np.array([1, -3], np.int64), "k": np.arange(30, dtype=np.int64).reshape(3, 10)}
    nodes = [helper.make_node("Slice", ["x", "s", "e", "a", "t"], ["y8"]),
             helper.make_node("Slice", ["k", "s", "e", "a", "t"], ["y64"])]
    check_nodes(nodes, {"x": (np.int8, x8.shape)}, {"x": x8}, tmp_path, initializers=inits, exact=True)


def test_qdq_int8_slice_and_gather_run_on_codes(tmp_path):
    """DQ → Slice / Gather → Q: the op moves int8 codes (a lut8 requantizes when the output's parameters differ),
    equal to the integer reference and within 1 LSB of onnxruntime."""
    from qmodels import QModel, check_qmodel

    qm = QModel(np.int8)
    _, af = qm.act("a", (1, 4, 6, 6), 0.03, -5)
    qm.node("Slice", [af, qm.init("st", np.array([1, -1], np.int64)), qm.init("en", np.array([4, -6], np.int64)),
                      qm.init("ax", np.array([1, 3], np.int64)), qm.init("sp", np.array([2, -2], np.int64))], ["s"])
    qm.out("s", "sy", (1, 2, 6, 3), 0.03, -5)
    _, bf = qm.act("b", (5, 7), 0.05, 20)
    qm.node("Gather", [bf, qm.init("idx", np.array([[4, 0], [2, 2]], np.int64))], ["gth"], axis=0)
    qm.out("gth", "gy", (2, 2, 7), 0.07, 3)  # other parameters: requantized by a lut8
    ops = check_qmodel(qm, tmp_path)
    assert ops["s_node"] == "slice" and ops["gth_node"] == "gather"


def test_slice_channels_last(tmp_path, monkeypatch):
    """4-D slices run channels-last (the first indices and steps permuted into the stored axis order): clamped,
    reversed and stepped, the channel axis sliced too; exact against onnxruntime."""
    from helpers import channels_last, layer_layouts

    channels_last(monkeypatch, "slice")
    x = rand(np.random.default_rng(101), 2, 5, 6, 7)
    cases = {"spatial": ([1, -2], [5, -8], [2, 3], [1, -2]), "channels": ([4, 0], [0, BIG], [1, 3], [-2, 3]),
             "all": ([0, 1, 5, 6], [2, 5, -BIG, 0], [0, 1, 2, 3], [1, 2, -1, -3])}
    inits, nodes = {}, []
    for name, (starts, ends, axes, steps) in cases.items():
        for label, value in (("s", starts), ("e", ends), ("a", axes), ("t", steps)):
            inits[f"{name}_{label}"] = np.array(value, np.int64)
        nodes.append(helper.make_node("Slice", ["x"] + [f"{name}_{label}" for label in "seat"], [name]))
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, exact=True)
    assert layer_layouts(tmp_path)["slice"] == {"nhwc"}
