"""depth_to_space (6-D walk) against onnxruntime (exact): DepthToSpace DCR and CRD, SpaceToDepth, uint8 data, in
both layouts, and int8 QDQ groups that move codes."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import channels_last, check_nodes, layer_layouts, rand


def test_depth_to_space_modes(tmp_path):
    rng = np.random.default_rng(130)
    x = rand(rng, 2, 8, 3, 5)
    s = rng.integers(0, 256, (1, 3, 4, 6), dtype=np.uint8)
    nodes = [helper.make_node("DepthToSpace", ["x"], ["dcr"], blocksize=2),
             helper.make_node("DepthToSpace", ["x"], ["crd"], blocksize=2, mode="CRD"),
             helper.make_node("SpaceToDepth", ["s"], ["s2d"], blocksize=2)]
    inputs = {"x": (np.float32, x.shape), "s": (np.uint8, s.shape)}
    check_nodes(nodes, inputs, {"x": x, "s": s}, tmp_path, exact=True)


def test_depth_to_space_channels_last(tmp_path, monkeypatch):
    """Both ops and modes on channels-last images (the walk of the channel index split into block and channel)."""
    channels_last(monkeypatch, "depth_to_space")
    rng = np.random.default_rng(131)
    x = rng.integers(-128, 128, (2, 12, 3, 5), dtype=np.int8)
    s = rand(rng, 1, 3, 4, 6)
    nodes = [helper.make_node("DepthToSpace", ["x"], ["dcr"], blocksize=2),
             helper.make_node("DepthToSpace", ["x"], ["crd"], blocksize=2, mode="CRD"),
             helper.make_node("SpaceToDepth", ["s"], ["s2d"], blocksize=2)]
    check_nodes(nodes, {"x": (np.int8, x.shape), "s": (np.float32, s.shape)}, {"x": x, "s": s}, tmp_path,
                exact=True)
    assert layer_layouts(tmp_path)["depth_to_space"] == {"nhwc"}


def test_qdq_depth_to_space_and_space_to_depth_move_codes(tmp_path):
    """DQ → DepthToSpace / SpaceToDepth → Q: the op moves int8 codes (a lut8 requantizes where the output's
    parameters differ); equal to the integer reference and within 1 LSB of onnxruntime."""
    from qmodels import QModel, check_qmodel

    qm = QModel(np.int8)
    _, af = qm.act("a", (1, 8, 3, 4), 0.03, -5)
    qm.node("DepthToSpace", [af], ["d"], blocksize=2, mode="CRD")
    qm.out("d", "dy", (1, 2, 6, 8), 0.03, -5)
    _, bf = qm.act("b", (1, 2, 4, 6), 0.05, 20)
    qm.node("SpaceToDepth", [bf], ["s"], blocksize=2)
    qm.out("s", "sy", (1, 8, 2, 3), 0.07, 3)
    ops = check_qmodel(qm, tmp_path)
    assert ops["d_node"] == ops["s_node"] == "depth_to_space"
