"""conv2d_f32's depthwise path (runtime_c/kernels/conv2d_f32_depthwise.c): against onnxruntime in both float
multiply-accumulate forms (the sliding 3x3 rows at strides 1 and 2 with every pad from 0 to 1 and asymmetric pads,
planes from 1x1 to 4x4 where no row slides, dilations, 5x5 and 1-D windows, channel multipliers, runtime weights,
fused Relu and Clip); bit for bit equal to the general path it replaces; the paths as files (the lowering names the
path, the C calls its function, `show` prints it); the host build equal to QEMU's on every core."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import helper

import mcucomp
import mcucomp.host
from mcucomp.ops import conv2d_f32
from mcucomp.pipeline import lower_model
from mcucomp.show import format_node
from mcucomp.target.verify import verify_on_target

from float_cases import weighted_nodes
from helpers import (FLOAT_ULPS, SEPARATE_MAC_ULPS, assert_close, infer_outputs, make_model, rand,
                     run_both, ulp)
from target_boards import CORE_BOARDS

# (input shape, weight shape, bias, attrs): group = input channels
CASES = [
    ((1, 4, 9, 8), (4, 1, 3, 3), True, dict(pads=[1, 1, 1, 1])),
    ((1, 3, 7, 11), (3, 1, 3, 3), False, dict(pads=[0, 0, 0, 0])),
    ((1, 5, 9, 10), (5, 1, 3, 3), True, dict(pads=[1, 1, 1, 1], strides=[2, 2])),
    ((1, 2, 10, 9), (2, 1, 3, 3), True, dict(pads=[0, 0, 1, 1], strides=[2, 2])),
    ((1, 3, 8, 7), (3, 1, 3, 3), True, dict(pads=[1, 0, 0, 1])),
    ((1, 2, 6, 13), (2, 1, 3, 3), False, dict(pads=[0, 1, 1, 0], strides=[2, 2])),
    ((1, 3, 1, 1), (3, 1, 3, 3), True, dict(pads=[1, 1, 1, 1])),
    ((1, 2, 2, 2), (2, 1, 3, 3), True, dict(pads=[1, 1, 1, 1])),
    ((1, 2, 3, 3), (2, 1, 3, 3), False, dict(pads=[1, 1, 1, 1], strides=[2, 2])),
    ((1, 2, 4, 4), (2, 1, 3, 3), True, dict(pads=[1, 1, 1, 1])),
    ((1, 3, 3, 4), (3, 1, 3, 3), True, dict(pads=[0, 0, 0, 0])),
    ((1, 3, 9, 8), (3, 1, 3, 3), True, dict(pads=[2, 2, 2, 2], dilations=[2, 2])),
    ((1, 2, 12, 11), (2, 1, 5, 5), True, dict(pads=[2, 2, 2, 2])),
    ((1, 2, 11, 12), (2, 1, 5, 5), False, dict(pads=[1, 2, 2, 1], strides=[2, 2])),
    ((1, 3, 8, 9), (3, 1, 3, 3), True, dict(pads=[1, 1, 1, 1], strides=[1, 2])),
    ((1, 2, 7, 8), (6, 1, 3, 3), True, dict(pads=[1, 1, 1, 1])),
    ((2, 3, 6, 7), (3, 1, 3, 3), True, dict(pads=[1, 1, 1, 1], strides=[2, 2])),
    ((1, 4, 15), (4, 1, 3), True, dict(pads=[1, 1])),
    ((1, 3, 16), (6, 1, 5), False, dict(pads=[2, 1], strides=[2], dilations=[2])),
    ((1, 2, 10, 4), (2, 1, 3, 1), True, dict(pads=[1, 0, 1, 0])),
]

FORMS = ("fused", "separate")


def _case_nodes(rng, runtime: bool):
    """One depthwise Conv per case."""
    cases = [(x, w, b, {**attrs, "group": x[1]}) for x, w, b, attrs in CASES]
    return weighted_nodes("Conv", cases, lambda w, attrs: w[0], rng, runtime)


def test_cases_take_the_depthwise_path():
    """Every case lowers to the depthwise path, the undilated 3x3 ones of equal strides 1 or 2 over at least 3 input
    columns to its sliding rows."""
    nodes, inputs, _, inits = _case_nodes(np.random.default_rng(40), runtime=False)
    model = make_model(nodes, inputs, infer_outputs(nodes, inputs, inits), inits)
    g, order = lower_model(model)[:2]
    convs = sorted((node for node in order if node.op == "conv2d_f32"), key=lambda node: int(node.outputs[0][1:]))
    paths = [conv2d_f32.OP.cost_terms(node, g)[0] for node in convs]
    sliding = [w[2:] == (3, 3) and a.get("dilations", [1, 1]) == [1, 1] and len(set(a.get("strides", [1, 1]))) == 1
               and x[-1] >= 3 for x, w, _, a in CASES]
    assert paths == ["depthwise3x3" if s else "depthwise" for s in sliding]
    assert all(conv2d_f32.OP.call(node, g).func == "conv2d_f32_depthwise" for node in convs)


def _magnitudes(nodes, inputs: dict, feeds: dict, inits: dict) -> dict[str, float]:
    """Per output, the largest sum of |w * x| (+ |b|) over its taps (onnxruntime on the absolute values): the scale
    of a short sum's rounding errors, which cancellation can leave far above the sum itself."""
    absolute = {k: np.abs(v) for k, v in inits.items()}
    model = make_model(nodes, inputs, infer_outputs(nodes, inputs, absolute), absolute)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, (float(np.abs(v).max()) for v in sess.run(names, {k: np.abs(v) for k, v in feeds.items()}))))


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("runtime", [False, True])
def test_depthwise_against_onnxruntime(tmp_path, form, runtime):
    """Within the form's bound (FLOAT_ULPS fused, SEPARATE_MAC_ULPS separate) in ulps of each output's largest sum
    of |terms|: a 9-tap depthwise sum can cancel down to far below its terms, and onnxruntime sums in its own order,
    so ulp(max|ref|) would bound the two orders' difference only for long, non-cancelling sums."""
    nodes, inputs, feeds, inits = _case_nodes(np.random.default_rng(41 + runtime), runtime)
    model = make_model(nodes, inputs, infer_outputs(nodes, inputs, inits), inits)
    ours, ref = run_both(model, feeds, tmp_path, float_mac=form)
    mags = _magnitudes(nodes, inputs, feeds, inits)
    ulps = FLOAT_ULPS if form == "fused" else SEPARATE_MAC_ULPS
    for name, value in ref.items():
        assert ours[name].shape == value.shape and ours[name].dtype == value.dtype, name
        err = float(np.abs(ours[name].astype(np.float64) - value).max())
        assert err <= ulps * ulp(mags[name]), f"{name}: |got - ref| = {err:.3g} exceeds {ulps} ulp({mags[name]:.4g})"


def _activation_model(rng, fuse: bool = True):
    """Depthwise convs with a fused Relu and a fused Clip(0, 6) whose outputs land below, inside and above the
    range; with `fuse` False the convs' own outputs are graph outputs too, so nothing fuses."""
    n = helper.make_node
    nodes = [n("Conv", ["x", "w1", "b1"], ["c1"], group=4, pads=[1, 1, 1, 1]), n("Relu", ["c1"], ["r"]),
             n("Conv", ["r", "w2", "b2"], ["c2"], group=4, pads=[1, 1, 1, 1], strides=[2, 2]),
             n("Clip", ["c2", "lo", "hi"], ["y"])]
    inits = {"w1": rand(rng, 4, 1, 3, 3), "b1": rand(rng, 4), "w2": rand(rng, 4, 1, 3, 3) * 3, "b2": rand(rng, 4),
             "lo": np.float32(0), "hi": np.float32(6)}
    inputs = {"x": (np.float32, (1, 4, 11, 10))}
    shapes = infer_outputs(nodes, inputs, inits)
    outputs = {name: shapes[name] for name in (["y"] if fuse else ["c1", "r", "c2", "y"])}
    return make_model(nodes, inputs, outputs, inits), inputs


@pytest.mark.parametrize("form", FORMS)
def test_fused_relu_and_clip(tmp_path, form):
    """The fused clamp equals Relu and Clip applied to the unfused convs' outputs, bit for bit."""
    rng = np.random.default_rng(43)
    model, inputs = _activation_model(rng)
    assert [n.op for n in lower_model(model).graph.nodes] == ["conv2d_f32", "conv2d_f32"]
    feeds = {"x": rand(rng, *inputs["x"][1]) * 2}
    mcucomp.compile_model(model, tmp_path / "fused", name="m", float_mac=form)
    fused = mcucomp.host.load(tmp_path / "fused").run(feeds)["y"]
    plain, _ = _activation_model(np.random.default_rng(43), fuse=False)
    mcucomp.compile_model(plain, tmp_path / "plain", name="m", float_mac=form)
    unfused = mcucomp.host.load(tmp_path / "plain").run(feeds)
    assert_close(unfused["r"], np.maximum(unfused["c1"], np.float32(0)), "r", exact=True)
    assert_close(fused, np.minimum(np.maximum(unfused["c2"], np.float32(0)), np.float32(6)), "y", exact=True)
    assert (fused == 0).any() and (fused == 6).any() and ((fused > 0) & (fused < 6)).any()


@pytest.mark.parametrize("form", FORMS)
def test_bit_equal_to_the_general_path(tmp_path, form, monkeypatch):
    """Each output keeps the general loop's order (taps from 0.0 in row, column order, padding skipped, bias last,
    then the clamp), so both paths give the same bits, signed zeros included."""
    rng = np.random.default_rng(44)
    nodes, inputs, feeds, inits = _case_nodes(rng, runtime=False)
    model = make_model(nodes, inputs, infer_outputs(nodes, inputs, inits), inits)
    # zero inputs and negative weights make -0.0 products: the sums must still start from +0.0
    feeds = {k: np.where(rng.random(v.shape) < 0.3, np.float32(0), v).astype(np.float32) for k, v in feeds.items()}
    mcucomp.compile_model(model, tmp_path / "dw", name="m", float_mac=form)
    ours = mcucomp.host.load(tmp_path / "dw").run(feeds)
    monkeypatch.setattr(conv2d_f32, "depthwise", lambda node, g: False)
    mcucomp.compile_model(model, tmp_path / "general", name="m", float_mac=form)
    assert "conv2d_f32_depthwise" not in (tmp_path / "general" / "m.c").read_text()
    general = mcucomp.host.load(tmp_path / "general").run(feeds)
    for name, value in general.items():
        assert_close(ours[name], value, name, exact=True)


@pytest.mark.parametrize("form", FORMS)
def test_signed_zeros_equal_the_general_path(tmp_path, form, monkeypatch):
    """Windows whose products are all -0.0 (zero inputs, negative weights), with a -0.0 bias, a +0.0 bias and none,
    at both strides and at every border: the same signed zeros as the general path (sums from +0.0)."""
    rng = np.random.default_rng(47)
    n = helper.make_node
    weights = -np.abs(rand(rng, 3, 1, 3, 3))
    weights[1, 0, 1] = 0.5  # one channel with a positive middle row: +0.0 products among the -0.0 ones
    inits = {"w": weights, "bneg": np.full(3, -0.0, np.float32), "bpos": np.zeros(3, np.float32)}
    nodes = [n("Conv", ["x", "w", "bneg"], ["y0"], group=3, pads=[1, 1, 1, 1]),
             n("Conv", ["x", "w", "bpos"], ["y1"], group=3, pads=[1, 1, 1, 1], strides=[2, 2]),
             n("Conv", ["x", "w"], ["y2"], group=3, pads=[1, 0, 0, 1]),
             n("Conv", ["x", "w"], ["y3"], group=3, pads=[0, 1, 1, 0], strides=[2, 2])]
    inputs = {"x": (np.float32, (1, 3, 7, 8))}
    model = make_model(nodes, inputs, infer_outputs(nodes, inputs, inits), inits)
    x = rand(rng, 1, 3, 7, 8)
    x[:, :, 2:6, 1:7] = 0.0
    feeds = [{"x": np.zeros((1, 3, 7, 8), np.float32)}, {"x": x}]
    mcucomp.compile_model(model, tmp_path / "dw", name="m", float_mac=form)
    ours = [mcucomp.host.load(tmp_path / "dw").run(f) for f in feeds]
    monkeypatch.setattr(conv2d_f32, "depthwise", lambda node, g: False)
    mcucomp.compile_model(model, tmp_path / "general", name="m", float_mac=form)
    general = [mcucomp.host.load(tmp_path / "general").run(f) for f in feeds]
    # zero sums of -0.0 products: +0.0 from the sums that start at +0.0 (-0.0 from a sum of the products alone)
    assert all((v == 0).any() for out in general for v in out.values())
    for got, want in zip(ours, general):
        for name, value in want.items():
            assert_close(got[name], value, name, exact=True)


def test_model_links_the_depthwise_file(tmp_path):
    """The compile output holds conv2d_f32_depthwise.c, the C calls mcu_conv2d_f32_depthwise, the report's layer
    names that kernel and `show` the path."""
    model, _ = _activation_model(np.random.default_rng(45))
    g, order = lower_model(model)[:2]
    shown = [format_node(0, node, g).split()[2] for node in order if node.op == "conv2d_f32"]
    assert shown == ["conv2d_f32.depthwise3x3", "conv2d_f32.depthwise3x3"]
    result = mcucomp.compile_model(model, tmp_path, name="m")
    assert {"m_conv2d_f32_depthwise.c", "m_conv2d_f32_depthwise.h"} <= set(result.report["files"])
    assert {layer["kernel"] for layer in result.report["layers"] if layer["op"] == "conv2d_f32"} == {
        "conv2d_f32_depthwise"}
    model_c = (tmp_path / "m.c").read_text()
    assert model_c.count("m_conv2d_f32_depthwise(&") == 2 and "m_conv2d_f32(&" not in model_c


def _target_model():
    """Every case of CASES (sliding rows of 1 to 9 outputs, both strides and both tails, every border, the clipped
    windows), with runtime weights, and a fused Clip and Relu on two of them."""
    nodes, inputs, _, inits = _case_nodes(np.random.default_rng(46), runtime=True)
    inits.update(lo=np.float32(-0.5), hi=np.float32(1.5))
    nodes += [helper.make_node("Clip", ["y0", "lo", "hi"], ["y0c"]), helper.make_node("Relu", ["y2"], ["y2r"])]
    outputs = {k: v for k, v in infer_outputs(nodes, inputs, inits).items() if k not in ("y0", "y2")}
    return make_model(nodes, inputs, outputs, inits)


@pytest.mark.parametrize("board", CORE_BOARDS)
def test_on_target_equal_host(board, tmp_path):
    """On each QEMU core (the core's own float multiply-accumulate form; soft-float on the M0+) the firmware's
    outputs equal the host build's bit for bit, every case of CASES included."""
    model = _target_model()
    result = mcucomp.compile_model(model, tmp_path, name="m", board=board)
    assert "m_conv2d_f32_depthwise.c" in result.report["files"]
    assert len(result.report["layers"]) == len(CASES)  # the Clip and the Relu fused into their convs
    verified = verify_on_target(tmp_path, board, inputs=4, seed=0, timeout_s=120)
    assert verified.status == "ok", verified.detail
    assert verified.mismatching and all(v == 0 for v in verified.mismatching.values()), verified.mismatching
