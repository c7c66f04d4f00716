"""resize against onnxruntime: nearest (every nearest_mode; int8 and uint8 data too), linear and cubic (cubic_coeff_a,
exclude_outside, antialias), every coordinate_transformation_mode, scales or sizes, axes, keep_aspect_ratio_policy,
tf_crop_and_resize with roi and extrapolation_value; opset 13 and 19.

Nearest outputs are copies and must match exactly. Linear and cubic outputs are compared within WEIGHTED_ULPS:
onnxruntime computes source coordinates and filter weights in float32, we (like the ONNX reference) in float64 and
round each weight once, so weights differ by a few ULPs, and an output sums up to 16 taps (cubic) or more
(antialias). Measured: at most 12 ULP(max|ref|) (cubic, pytorch_half_pixel).
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from float_cases import check_nodes_ulps
from helpers import channels_last, check_nodes, layer_layouts, rand

WEIGHTED_ULPS = 16
COORDS = ["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric"]

# (input shape, scales or None, sizes or None, attrs)
WEIGHTED = [
    *[((1, 2, 4, 5), [1, 1, 1.5, 0.6], None, dict(mode="linear", coordinate_transformation_mode=c)) for c in COORDS],
    *[((1, 1, 5, 4), None, [1, 1, 3, 7], dict(mode="cubic", coordinate_transformation_mode=c)) for c in COORDS],
    ((1, 1, 6, 7), [1, 1, 0.5, 0.75], None, dict(mode="cubic", cubic_coeff_a=-0.5, exclude_outside=1)),
    ((1, 1, 8, 7), None, [1, 1, 3, 4], dict(mode="linear", antialias=1)),
    ((1, 1, 8, 7), None, [1, 1, 3, 5], dict(mode="cubic", antialias=1)),
    ((2, 6, 5), None, [3, 4], dict(mode="linear", axes=[2, 1], keep_aspect_ratio_policy="not_larger")),
]
NEAREST = [
    *[((2, 3, 3), [1, 1, 2.5], None, dict(mode="nearest", nearest_mode=m))
      for m in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")],
    ((2, 6, 5), None, [3, 4], dict(mode="nearest", axes=[1, 2], keep_aspect_ratio_policy="not_smaller")),
    ((3, 4, 5), [0.5, 2], None, dict(mode="nearest", axes=[0, 2], coordinate_transformation_mode="asymmetric")),
    ((1, 2, 3, 4), [1, 1, 2.0, 1.5], None, dict(mode="nearest", coordinate_transformation_mode="align_corners")),
]


def _resize_nodes(cases, rng, dtype=np.float32):
    """One Resize per case, scales or sizes as initializers, inputs of `dtype`."""
    nodes, inputs, feeds, inits = [], {}, {}, {}
    for i, (shp, scales, sizes, attrs) in enumerate(cases):
        x = rand(rng, *shp) if dtype == np.float32 else rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, shp)
        inputs[f"x{i}"], feeds[f"x{i}"] = (dtype, shp), x.astype(dtype)
        if scales is not None:
            inits[f"s{i}"] = np.array(scales, np.float32)
            names = [f"x{i}", "", f"s{i}"]
        else:
            inits[f"z{i}"] = np.array(sizes, np.int64)
            names = [f"x{i}", "", "", f"z{i}"]
        nodes.append(helper.make_node("Resize", names, [f"y{i}"], **attrs))
    return nodes, inputs, feeds, inits


def test_resize_linear_cubic(tmp_path):
    nodes, inputs, feeds, inits = _resize_nodes(WEIGHTED, np.random.default_rng(50))
    check_nodes_ulps(nodes, inputs, feeds, tmp_path, WEIGHTED_ULPS, inits, opset=19)


def test_resize_nearest(tmp_path):
    """float32, int8 and uint8 data: exact copies."""
    rng = np.random.default_rng(51)
    for dtype in (np.float32, np.int8, np.uint8):
        nodes, inputs, feeds, inits = _resize_nodes(NEAREST, rng, dtype)
        check_nodes(nodes, inputs, feeds, tmp_path / np.dtype(dtype).name, inits, opset=19, exact=True)


def test_resize_crop_and_resize(tmp_path):
    """tf_crop_and_resize at opset 13, linear and nearest, with positions outside the input (extrapolation_value)."""
    rng = np.random.default_rng(52)
    inits = {"roi": np.array([0, 0, 0.2, -0.1, 1, 1, 0.9, 1.3], np.float32),
             "sizes": np.array([1, 2, 4, 5], np.int64)}
    nodes = [helper.make_node("Resize", ["x", "roi", "", "sizes"], ["y"], mode=mode, extrapolation_value=7.5,
                              coordinate_transformation_mode="tf_crop_and_resize") for mode in ("linear", "nearest")]
    feeds = {"x": rand(rng, 1, 2, 5, 6)}
    inputs = {"x": (np.float32, (1, 2, 5, 6))}
    check_nodes_ulps(nodes[:1], inputs, feeds, tmp_path / "linear", WEIGHTED_ULPS, inits)
    out = check_nodes([nodes[1]], inputs, feeds, tmp_path / "nearest", inits, exact=True)
    assert (out["y"] == 7.5).any()


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_qdq_int8_linear_resize_integer_weights(dtype, tmp_path):
    """DQ → Resize(linear) → Q with equal parameters: the resize interpolates codes with integer weights (no float),
    equal to the integer reference and within 1 LSB of onnxruntime: 2x bilinear upsampling (half_pixel and
    align_corners), a fractional 1-D scale, and a downscale."""
    from qmodels import QModel, check_qmodel

    qm = QModel(dtype)
    off = qm.zp_offset
    nodes = []
    for i, (shape, scales, coord) in enumerate((((1, 3, 4, 5), [1, 1, 2, 2], "half_pixel"),
                                                ((1, 2, 3, 3), [1, 1, 2, 2], "align_corners"),
                                                ((1, 2, 7), [1, 1, 1.75], "asymmetric"),
                                                ((1, 2, 8, 6), [1, 1, 0.5, 0.75], "pytorch_half_pixel"))):
        scale, zp = 0.021, 7 * i - 10 + off
        _, xf = qm.act(f"r{i}x", shape, scale, zp)
        qm.node("Resize", [xf, "", qm.init(f"r{i}s", np.array(scales, np.float32))], [f"r{i}_rs"], mode="linear",
                coordinate_transformation_mode=coord)
        out_shape = qm.infer_shape(f"r{i}_rs")
        qm.out(f"r{i}_rs", f"r{i}_y", out_shape, scale, zp)
        nodes.append(f"r{i}_rs_node")
    ops = check_qmodel(qm, tmp_path, seeds=range(3))
    assert [ops[n] for n in nodes] == ["resize"] * len(nodes)


def test_resize_channels_last(tmp_path, monkeypatch):
    """Every case channels-last (the per-axis tables in the stored axis order): weighted within the same ULPs,
    nearest int8 exact, the channel axis resized too (axes=[1, 2], [0, 2])."""
    channels_last(monkeypatch, "resize")
    rng = np.random.default_rng(53)
    nodes, inputs, feeds, inits = _resize_nodes(WEIGHTED, rng)
    check_nodes_ulps(nodes, inputs, feeds, tmp_path / "weighted", WEIGHTED_ULPS, inits, opset=19)
    assert layer_layouts(tmp_path / "weighted")["resize"] == {"nhwc"}
    nodes, inputs, feeds, inits = _resize_nodes(NEAREST, rng, np.int8)
    check_nodes(nodes, inputs, feeds, tmp_path / "nearest", inits, opset=19, exact=True)
    assert layer_layouts(tmp_path / "nearest")["resize"] == {"nhwc"}
