"""conv2d_f32's paths as files: a model whose one conv takes a path links that path's runtime file and no other conv
path's (runtime_c/kernels/conv2d_f32_<path>.c), its C calls that path's function, and the report and `mcucomp show`
name the same path; each path against onnxruntime in both multiply-accumulate forms, over the register block's tails
(output channels and pixels not multiples of 4), 1-D convs, first layers of 1-3 channels and fused Relu/Clip; host
and QEMU bit for bit on every core."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import mcucomp
from mcucomp.ops.conv2d_f32 import OP, PATHS, conv_path
from mcucomp.pipeline import lower_model
from mcucomp.show import format_node
from mcucomp.target.verify import verify_on_target

from float_cases import weighted_nodes
from helpers import check_model, check_nodes, infer_outputs, make_model, rand
from target_boards import CORE_BOARDS

#: One conv per path: (input shape, weight shape, has bias, attrs, weights as graph inputs).
PATH_CASES = {
    "pointwise": ((1, 6, 5, 3), (7, 6, 1, 1), True, {}, False),
    "im2col": ((1, 5, 6, 7), (6, 5, 3, 3), True, dict(pads=[1, 1, 1, 1]), False),
    "depthwise": ((1, 4, 6, 5), (4, 1, 3, 3), True, dict(group=4, pads=[1, 1, 1, 1]), False),
    "general": ((1, 4, 6, 5), (4, 2, 3, 3), True, dict(group=2, pads=[1, 1, 1, 1]), False),
}

#: Tails and shapes of the GEMM paths: c_out 1..9 against the 4-channel block, pixel counts 1..9 against the 4-pixel
#: block, 1-D convs (kernels 3-9), first layers of 1-3 channels, strides, dilations, asymmetric pads, batch 2 (im2col);
#: rows wide enough for im2col blocks read in place (c_out below IN_PLACE_C_OUT) next to gathered ones.
GEMM_CASES = [
    ((1, 3, 1, 1), (1, 3, 1, 1), True, {}),
    ((1, 5, 1, 2), (2, 5, 1, 1), False, {}),
    ((1, 2, 3, 1), (3, 2, 1, 1), True, {}),
    ((1, 9, 5, 1), (5, 9, 1, 1), True, {}),
    ((1, 4, 3, 3), (9, 4, 1, 1), True, {}),
    ((1, 8, 16), (4, 8, 1), True, {}),
    ((2, 3, 4, 4), (5, 3, 1, 1), True, {}),
    ((1, 3, 9, 8), (16, 3, 3, 3), True, dict(pads=[1, 1, 1, 1])),
    ((1, 1, 10, 6), (6, 1, 10, 4), True, dict(pads=[4, 1, 5, 2], strides=[2, 2])),
    ((1, 2, 7, 5), (3, 2, 3, 3), False, dict(pads=[1, 1, 1, 1], strides=[2, 1])),
    ((1, 2, 9, 16), (6, 2, 3, 3), True, dict(pads=[1, 1, 1, 1], strides=[2, 2])),
    ((1, 3, 6, 9), (7, 3, 2, 3), True, dict(pads=[0, 2, 1, 0], dilations=[2, 2])),
    ((2, 4, 5, 6), (5, 4, 3, 3), True, dict(pads=[1, 1, 1, 1])),
    ((1, 2, 6, 13), (6, 2, 3, 3), True, dict(pads=[1, 1, 1, 1])),
    ((1, 2, 9, 14), (5, 2, 3, 3), True, dict(pads=[2, 2, 2, 2], dilations=[2, 2])),
    ((1, 3, 13), (8, 3, 3), True, dict(pads=[1, 1])),
    ((1, 6, 21), (5, 6, 5), True, dict(pads=[2, 2], strides=[2])),
    ((1, 4, 17), (9, 4, 9), True, dict(pads=[4, 4])),
    ((1, 5, 15), (3, 5, 7), False, dict(dilations=[2])),
]


def _path_model(path: str):
    """A one-conv model of PATH_CASES[path] and its feeds."""
    rng = np.random.default_rng(5)
    x_shape, w_shape, bias, attrs, _ = PATH_CASES[path]
    nodes, inputs, feeds, inits = weighted_nodes("Conv", [(x_shape, w_shape, bias, attrs)], lambda w, a: w[0], rng,
                                                 runtime=False)
    return make_model(nodes, inputs, infer_outputs(nodes, inputs, inits), inits), feeds


def test_every_path_has_a_case():
    """The cases cover every path the lowering names."""
    assert set(PATH_CASES) == set(PATHS)


@pytest.mark.parametrize("path", sorted(PATH_CASES))
def test_model_links_only_its_path(tmp_path, path):
    """The compile output holds conv2d_f32_<path>.c alone of the conv files, the C calls its function, the report's
    layer names that kernel and `show` the path; the outputs are within the float bound of onnxruntime."""
    model, feeds = _path_model(path)
    g, order = lower_model(model)[:2]
    conv = next(node for node in order if node.op == "conv2d_f32")
    assert conv_path(conv, g) == path
    # show prints the cost path: the depthwise file's 3x3 sliding rows are its own (depthwise3x3)
    assert format_node(0, conv, g).split()[2] == f"conv2d_f32.{OP.cost_terms(conv, g)[0]}"
    assert OP.cost_terms(conv, g)[0].startswith(path)
    check_model(model, feeds, tmp_path / "out")
    report = __import__("json").loads((tmp_path / "out" / "report.json").read_text())
    conv_files = {f for f in report["files"] if f.startswith("m_conv2d_f32")}
    gemm = {"m_conv2d_f32_gemm.h"} if path in ("pointwise", "im2col") else set()
    assert conv_files == {f"m_conv2d_f32_{path}.c", f"m_conv2d_f32_{path}.h", "m_conv2d_f32.h"} | gemm
    layer = next(layer for layer in report["layers"] if layer["name"] == conv.name)
    assert layer["kernel"] == f"conv2d_f32_{path}"
    model_c = (tmp_path / "out" / "m.c").read_text()
    assert f"m_conv2d_f32_{path}(&" in model_c
    assert not any(f"m_conv2d_f32_{other}(&" in model_c for other in PATHS if other != path)


def test_runtime_weights_take_the_general_path():
    """Weights that are graph inputs cannot be packed at compile time: a 1x1 conv over them takes the general path."""
    nodes, inputs, _, inits = weighted_nodes("Conv", [((1, 3, 4, 4), (5, 3, 1, 1), True, {})], lambda w, a: w[0],
                                             np.random.default_rng(1), runtime=True)
    g, order = lower_model(make_model(nodes, inputs, infer_outputs(nodes, inputs, inits), inits))[:2]
    assert conv_path(order[0], g) == "general"


@pytest.mark.parametrize("form", ["fused", "separate"])
def test_gemm_paths_against_onnxruntime(tmp_path, form):
    """Every tail and shape of GEMM_CASES within the form's float bound of onnxruntime; batch-1 unpadded 1x1 convs
    take the pointwise path, the rest im2col, whose blocks go every way: read in place, gathered a row or a pixel at a
    time, padded past the last pixel."""
    nodes, inputs, feeds, inits = weighted_nodes("Conv", GEMM_CASES, lambda w, a: w[0], np.random.default_rng(7),
                                                 runtime=False)
    model = make_model(nodes, inputs, infer_outputs(nodes, inputs, inits), inits)
    g, order = lower_model(model)[:2]
    paths = {node.outputs[0]: conv_path(node, g) for node in order}
    assert {paths[f"y{i}"] for i in range(6)} == {"pointwise"}
    assert {paths[f"y{i}"] for i in range(6, len(GEMM_CASES))} == {"im2col"}
    terms = [OP.cost_terms(node, g)[1] for node in order if paths[node.outputs[0]] == "im2col"]
    for kind in ("in_place_blocks", "row_blocks", "pixel_columns", "zero_columns_taps", "row_segment_floats",
                 "row_triples", "row_strided_triples", "row_quad_taps", "row_strided_taps"):
        assert any(t[kind] for t in terms), kind
    check_model(model, feeds, tmp_path, float_mac=form)


def _fused_model():
    """A pointwise conv with a Relu and an im2col conv with a Clip, both folded into the kernel's clamp."""
    rng = np.random.default_rng(11)
    nodes = [helper.make_node("Conv", ["x1", "w1", "b1"], ["c1"]), helper.make_node("Relu", ["c1"], ["y1"]),
             helper.make_node("Conv", ["x2", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("Clip", ["c2", "lo", "hi"], ["y2"])]
    # a Relu6-like upper bound inside the sums' range; a first layer's 3 channels (onnxruntime's own order for wider
    # 3x3 convs leaves the float bound even on the general path: see test_separate_form_is_the_fixed_order)
    inits = {"w1": rand(rng, 6, 5, 1, 1), "b1": rand(rng, 6), "w2": rand(rng, 7, 3, 3, 3), "b2": rand(rng, 7),
             "lo": np.float32(-1.0), "hi": np.float32(6.0)}
    inputs = {"x1": (np.float32, (1, 5, 7, 3)), "x2": (np.float32, (1, 3, 7, 3))}
    model = make_model(nodes, inputs, {"y1": (np.float32, (1, 6, 7, 3)), "y2": (np.float32, (1, 7, 7, 3))}, inits)
    return model, {"x1": rand(rng, 1, 5, 7, 3), "x2": rand(rng, 1, 3, 7, 3)}


@pytest.mark.parametrize("form", ["fused", "separate"])
def test_fused_clamps(tmp_path, form):
    """Relu and Clip fold into both GEMM paths' clamp; the outputs reach the bounds."""
    model, feeds = _fused_model()
    g, order = lower_model(model)[:2]
    assert sorted(conv_path(node, g) for node in order) == ["im2col", "pointwise"]
    out = check_model(model, feeds, tmp_path, float_mac=form)
    assert (out["y1"] == 0).any() and (out["y1"] > 0).any()
    assert (out["y2"] == -1.0).any() and (out["y2"] == 6.0).any()


def _ordered_conv(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, attrs: dict) -> np.ndarray:
    """The separate form's arithmetic in numpy float32: each output from +0.0 over its taps in (input channel,
    kernel row, column) order, acc + w * x rounded at each step (padding taps add w * 0), then the bias."""
    spatial = x.ndim - 2
    x4, w4 = (x[:, :, None], w[:, :, None]) if spatial == 1 else (x, w)
    k_h, k_w = w4.shape[2:]
    s_h, s_w = ([1] + attrs.get("strides", [1])) if spatial == 1 else attrs.get("strides", [1, 1])
    d_h, d_w = ([1] + attrs.get("dilations", [1])) if spatial == 1 else attrs.get("dilations", [1, 1])
    pads = attrs.get("pads", [0] * 2 * spatial)
    p_t, p_l, p_b, p_r = (0, pads[0], 0, pads[1]) if spatial == 1 else pads
    xp = np.pad(x4, ((0, 0), (0, 0), (p_t, p_b), (p_l, p_r)))
    h_out = (xp.shape[2] - d_h * (k_h - 1) - 1) // s_h + 1
    w_out = (xp.shape[3] - d_w * (k_w - 1) - 1) // s_w + 1
    acc = np.zeros((x.shape[0], w.shape[0], h_out, w_out), np.float32)
    for ic in range(w4.shape[1]):
        for ky in range(k_h):
            for kx in range(k_w):
                rows = slice(ky * d_h, ky * d_h + s_h * (h_out - 1) + 1, s_h)
                tap = xp[:, ic, rows, kx * d_w:kx * d_w + s_w * (w_out - 1) + 1:s_w]
                acc = acc + w4[None, :, ic, ky, kx, None, None] * tap[:, None]
    if b is not None:
        acc = acc + b[None, :, None, None]
    return acc if spatial == 2 else acc[:, :, 0]


def test_separate_form_is_the_fixed_order(tmp_path):
    """In the separate form every GEMM case equals the fixed order (numpy float32, one rounding per multiply and per
    add) bit for bit: the register blocks, packed weights, gathered columns and tails leave each output's order
    alone."""
    nodes, inputs, feeds, inits = weighted_nodes("Conv", GEMM_CASES, lambda w, a: w[0], np.random.default_rng(8),
                                                 runtime=False)
    model = make_model(nodes, inputs, infer_outputs(nodes, inputs, inits), inits)
    mcucomp.compile_model(model, tmp_path, name="m", float_mac="separate")
    ours = mcucomp.host.load(tmp_path).run(feeds)
    for i, (_, _, bias, attrs) in enumerate(GEMM_CASES):
        want = _ordered_conv(feeds[f"x{i}"], inits[f"w{i}"], inits.get(f"b{i}"), attrs)
        np.testing.assert_array_equal(ours[f"y{i}"].view(np.uint32), want.view(np.uint32), err_msg=f"case {i}")


@pytest.mark.parametrize("board", CORE_BOARDS)
def test_fused_clamps_on_target_equal_host(board, tmp_path):
    """The stores of a floored (Relu) and a clamped (Clip) block equal the host build's bit for bit on each core."""
    model, _ = _fused_model()
    mcucomp.compile_model(model, tmp_path, name="m", board=board)
    result = verify_on_target(tmp_path, board, inputs=4, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and all(v == 0 for v in result.mismatching.values()), result.mismatching


@pytest.mark.parametrize("board", CORE_BOARDS)
def test_paths_on_target_equal_host(board, tmp_path):
    """On each QEMU core (VMUL + VADD on M4/M33, VFMA on M7/M55, soft-float on M0+) the firmware's outputs equal the
    host build's bit for bit, over every tail of GEMM_CASES and every path."""
    nodes, inputs, feeds, inits = weighted_nodes("Conv", GEMM_CASES + [c[:4] for c in PATH_CASES.values()],
                                                 lambda w, a: w[0], np.random.default_rng(9), runtime=False)
    model = make_model(nodes, inputs, infer_outputs(nodes, inputs, inits), inits)
    mcucomp.compile_model(model, tmp_path, name="m", board=board)
    result = verify_on_target(tmp_path, board, inputs=4, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and all(v == 0 for v in result.mismatching.values()), result.mismatching


def test_general_path_keeps_groups(tmp_path):
    """Grouped (not depthwise) and 3-D convs stay on the general path and within the float bound."""
    cases = [((1, 4, 5, 5), (6, 2, 3, 3), True, dict(group=2, pads=[1, 1, 1, 1])),
             ((1, 2, 3, 4, 5), (3, 2, 2, 2, 2), True, {})]
    nodes, inputs, feeds, inits = weighted_nodes("Conv", cases, lambda w, a: w[0], np.random.default_rng(3),
                                                 runtime=False)
    g, order = lower_model(make_model(nodes, inputs, infer_outputs(nodes, inputs, inits), inits))[:2]
    assert [conv_path(node, g) for node in order] == ["general", "general"]
    check_nodes(nodes, inputs, feeds, tmp_path, inits)
