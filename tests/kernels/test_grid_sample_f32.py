"""grid_sample_f32 against onnxruntime: every mode x padding x align_corners on a 2-D image with grid points beyond
[-1, 1] (so every padding rule is exercised), a 1-D-output grid, and a 3-D volume (opset 20).

Cubic with border padding is compared with onnx.reference instead: the kernel follows the reference (and the ONNX node
tests), which clamps the sampling point to the border before taking the 4 taps, where onnxruntime (like PyTorch)
clamps each tap (differences up to 0.2 on these data).

Tolerance: each output is a short weighted sum (at most 4^n taps) whose weights are computed in a different order;
2 ulp(max|ref|) (helpers.FLOAT_ULPS) holds."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import helper

import mcucomp
import mcucomp.host
from helpers import FLOAT_ULPS, check_nodes, infer_outputs, make_model, rand, ulp


def grid_case(x_shape, grid_shape, seed, **attrs):
    """(nodes, inputs, feeds) of one GridSample node with grid values in [-1.4, 1.4]."""
    rng = np.random.default_rng(seed)
    feeds = {"x": rand(rng, *x_shape), "grid": (rng.random(grid_shape) * 2.8 - 1.4).astype(np.float32)}
    inputs = {"x": (np.float32, x_shape), "grid": (np.float32, grid_shape)}
    return [helper.make_node("GridSample", ["x", "grid"], ["y"], **attrs)], inputs, feeds


def check_reference(nodes, inputs, feeds, out_dir, opset):
    """Compile and run; compare with onnx.reference within FLOAT_ULPS ulp(max|ref|)."""
    from onnx.reference import ReferenceEvaluator

    model = make_model(nodes, inputs, infer_outputs(nodes, inputs, opset=opset), opset=opset)
    mcucomp.compile_model(model, out_dir, name="m")
    got = mcucomp.host.load(out_dir).run(feeds)["y"]
    ref = ReferenceEvaluator(model).run(None, feeds)[0]
    assert got.shape == ref.shape
    assert np.abs(got - ref).max() <= FLOAT_ULPS * ulp(np.abs(ref).max())


@pytest.mark.parametrize("mode,padding,align", itertools.product(["nearest", "linear", "cubic"],
                                                                 ["zeros", "border", "reflection"], [0, 1]))
def test_grid_sample_2d(tmp_path, mode, padding, align):
    nodes, inputs, feeds = grid_case((2, 3, 5, 4), (2, 3, 7, 2), 1, mode=mode, padding_mode=padding,
                                     align_corners=align)
    check = check_reference if (mode, padding) == ("cubic", "border") else check_nodes
    check(nodes, inputs, feeds, tmp_path, opset=20)


def test_grid_sample_opset16_names(tmp_path):
    """Opset 16 spells the modes bilinear / bicubic."""
    nodes, inputs, feeds = grid_case((1, 2, 4, 6), (1, 1, 9, 2), 2, mode="bicubic", padding_mode="reflection")
    check_nodes(nodes, inputs, feeds, tmp_path, opset=16)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_grid_sample_3d(tmp_path, mode):
    nodes, inputs, feeds = grid_case((1, 2, 3, 4, 2), (1, 2, 3, 2, 3), 3, mode=mode, padding_mode="reflection")
    check_nodes(nodes, inputs, feeds, tmp_path, opset=20)
