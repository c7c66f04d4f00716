"""tile (two walk levels per dim) against onnxruntime (exact): rank 4 with every dim repeated, repeats of 1,
channels-last images, and an int8 QDQ Tile that moves codes."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import channels_last, check_nodes, layer_layouts, rand


def test_tile_rank4_int32_and_float(tmp_path):
    rng = np.random.default_rng(120)
    k = rng.integers(-1000, 1000, (2, 3, 1, 5), dtype=np.int32)
    x = rand(rng, 3, 4)
    inits = {"r4": np.array([2, 3, 4, 2], np.int64), "r_one": np.array([1, 1], np.int64),
             "r_outer": np.array([3, 1], np.int64), "r_inner": np.array([1, 2], np.int64)}
    nodes = [helper.make_node("Tile", ["k", "r4"], ["k_tiled"]),
             helper.make_node("Tile", ["x", "r_one"], ["x_same"]),
             helper.make_node("Tile", ["x", "r_outer"], ["x_rows"]),
             helper.make_node("Tile", ["x", "r_inner"], ["x_cols"])]
    inputs = {"k": (np.int32, k.shape), "x": (np.float32, x.shape)}
    check_nodes(nodes, inputs, {"k": k, "x": x}, tmp_path, initializers=inits, exact=True)


def test_tile_channels_last(tmp_path, monkeypatch):
    """4-D and 3-D int8 images channels-last, repeating the channels, the spatial axes and the batch."""
    channels_last(monkeypatch, "tile")
    rng = np.random.default_rng(121)
    x = rng.integers(-128, 128, (2, 3, 4, 5), dtype=np.int8)
    w = rng.integers(-128, 128, (1, 3, 7), dtype=np.int8)
    inits = {"r_c": np.array([1, 2, 1, 1], np.int64), "r_hw": np.array([1, 1, 2, 3], np.int64),
             "r_all": np.array([2, 3, 1, 2], np.int64), "r_w": np.array([1, 2, 2], np.int64)}
    nodes = [helper.make_node("Tile", ["x", r], [f"y_{r}"]) for r in ("r_c", "r_hw", "r_all")]
    nodes.append(helper.make_node("Tile", ["w", "r_w"], ["w_tiled"]))
    check_nodes(nodes, {"x": (np.int8, x.shape), "w": (np.int8, w.shape)}, {"x": x, "w": w}, tmp_path,
                initializers=inits, exact=True)
    assert layer_layouts(tmp_path)["tile"] == {"nhwc"}


def test_qdq_tile_moves_codes(tmp_path):
    """DQ → Tile → Q: the tile repeats int8 codes; equal to the integer reference and within 1 LSB of
    onnxruntime."""
    from qmodels import QModel, check_qmodel

    qm = QModel(np.int8)
    _, af = qm.act("a", (1, 3, 4, 5), 0.03, -5)
    qm.node("Tile", [af, qm.init("reps", np.array([1, 2, 1, 2], np.int64))], ["t"])
    qm.out("t", "ty", (1, 6, 4, 10), 0.04, 2)
    assert check_qmodel(qm, tmp_path)["t_node"] == "tile"
