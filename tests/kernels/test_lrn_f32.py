"""lrn_f32 against onnxruntime (odd window sizes, default and explicit alpha/beta/bias; 4-D, all onnxruntime takes)
and against the ONNX formula in float64 for what onnxruntime refuses (even sizes, 3-D and 5-D inputs)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import mcucomp
import mcucomp.host
from helpers import check_nodes, make_model, rand


def test_lrn_odd_windows(tmp_path):
    rng = np.random.default_rng(80)
    feeds = {"x": rand(rng, 2, 7, 3, 4) * 3, "x3": rand(rng, 1, 5, 6, 1)}
    nodes = [helper.make_node("LRN", ["x"], ["d3"], size=3),
             helper.make_node("LRN", ["x"], ["w9"], size=9, alpha=0.3, beta=1.25, bias=0.5),
             helper.make_node("LRN", ["x3"], ["t1"], size=1, alpha=0.1, beta=0.5, bias=2.0)]
    check_nodes(nodes, {k: (np.float32, v.shape) for k, v in feeds.items()}, feeds, tmp_path)


@pytest.mark.parametrize("dims", [(1, 6, 2, 3), (2, 6, 5), (1, 6, 2, 1, 3)])
def test_lrn_even_window(tmp_path, dims):
    """size 4: the window is [c - 1, c + 2] (floor((size - 1) / 2) before, the rest after)."""
    x = rand(np.random.default_rng(81), *dims) * 3
    model = make_model([helper.make_node("LRN", ["x"], ["y"], size=4, alpha=1e-2, beta=0.75, bias=2.0)],
                       {"x": (np.float32, x.shape)}, {"y": (np.float32, x.shape)})
    mcucomp.compile_model(model, tmp_path, name="m")
    got = mcucomp.host.load(tmp_path).run({"x": x})["y"]
    sq = np.square(x.astype(np.float64))
    window = np.stack([sq[:, max(0, c - 1):c + 3].sum(axis=1) for c in range(6)], axis=1)
    np.testing.assert_allclose(got, x / (2.0 + 1e-2 / 4 * window) ** 0.75, rtol=1e-6)
