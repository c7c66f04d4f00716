"""split against onnxruntime (exact): split input, num_outputs with an uneven last chunk, negative axis, int8,
channels-last images, and int8 QDQ splits that move codes."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers import channels_last, check_model, check_nodes, infer_outputs, layer_layouts, make_model, rand


@pytest.mark.parametrize("io", ["arena", "caller"])
def test_split_opset13_split_input(io, tmp_path):
    """Output pointer arrays hold arena and caller-owned buffers alike."""
    rng = np.random.default_rng(140)
    x = rand(rng, 2, 9, 3)
    q = rng.integers(-128, 128, (5, 2), dtype=np.int8)
    inits = {"parts": np.array([1, 5, 3], np.int64)}
    nodes = [helper.make_node("Split", ["x", "parts"], ["a", "b", "c"], axis=1),
             helper.make_node("Relu", ["b"], ["b_relu"]),
             helper.make_node("Split", ["x"], ["h0", "h1"], axis=0),
             helper.make_node("Split", ["q"], ["q0", "q1"], axis=-1)]
    inputs = {"x": (np.float32, x.shape), "q": (np.int8, q.shape)}
    outputs = {n: v for n, v in infer_outputs(nodes, inputs, inits).items() if n != "b"}
    check_model(make_model(nodes, inputs, outputs, inits), {"x": x, "q": q}, tmp_path, exact=True, io=io)


def test_split_opset18_num_outputs_uneven(tmp_path):
    x = rand(np.random.default_rng(141), 3, 7)
    node = helper.make_node("Split", ["x"], ["p0", "p1", "p2", "p3"], axis=-1, num_outputs=4)
    check_nodes([node], {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, opset=18, exact=True)


def test_split_channels_last(tmp_path, monkeypatch):
    """Every axis of 4-D and 3-D int8 images channels-last: along C each pixel's C_i codes, along a spatial axis
    whole rows."""
    channels_last(monkeypatch, "split")
    rng = np.random.default_rng(142)
    inputs, feeds, nodes = {}, {}, []
    inits = {"parts": np.array([1, 3, 2], np.int64)}
    for base in ([2, 3, 5, 4], [2, 3, 5]):
        for axis in range(len(base)):
            shp = list(base)
            shp[axis] = 6
            name = f"x{len(base)}_{axis}"
            inputs[name] = (np.int8, tuple(shp))
            feeds[name] = rng.integers(-128, 128, shp).astype(np.int8)
            nodes.append(helper.make_node("Split", [name, "parts"], [f"{name}_y{j}" for j in range(3)],
                                          axis=axis - len(base) if axis % 2 else axis))
    check_nodes(nodes, inputs, feeds, tmp_path, initializers=inits, exact=True)
    assert layer_layouts(tmp_path)["split"] == {"nhwc"}


@pytest.mark.parametrize("act_dtype", [np.int8, np.uint8])
def test_qdq_split_moves_codes(act_dtype, tmp_path):
    """DQ → Split → Q on every output: the split copies 8-bit codes (uint8 ones run as int8); an output quantized
    like the input is the copy itself, one with other parameters is requantized by a lut8. Equal to the integer
    reference and within 1 LSB of onnxruntime, with no float layer."""
    from qmodels import QModel, check_qmodel

    qm = QModel(act_dtype)
    off = qm.zp_offset
    _, xf = qm.act("a", (1, 6, 4, 5), 0.03, -5 + off)
    qm.node("Split", [xf, qm.init("parts", np.array([2, 4], np.int64))], ["s0", "s1"], axis=1)
    qm.out("s0", "y0", (1, 2, 4, 5), 0.03, -5 + off)
    qm.out("s1", "y1", (1, 4, 4, 5), 0.05, 7 + off)
    ops = check_qmodel(qm, tmp_path)
    assert ops["s0_node"] == "split"
    assert sorted(op for op in ops.values() if op not in ("split", "recode8")) == ["lut8"], ops
