"""conv2d_s8 bit-exact against onnxruntime (QDQ groups it fuses, QLinearConv) and against the fixed-point reference.

Odd shapes: 1x1 images, channel counts that are not multiples of 4, asymmetric pads, stride 2 on odd sizes,
depthwise (multiplier 1 and 2), grouped, dilated, 1-D and pointwise convolutions (the two fast paths included).
The tests of one path are in test_conv2d_s8_<path>.py, the ARMv6-M assembly's in test_conv2d_s8_*_v6m.py, the
files each path links in test_conv2d_s8_paths.py.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import mcucomp
import mcucomp.pipeline
from mcucomp.errors import UnsupportedError
from mcucomp.ops import REGISTRY
from mcucomp.ops._conv2d_s8.depthwise import DW_DEFER
from mcucomp.ops._overlap import descending, pixel_pairs
from mcucomp.ops._window import window_geom
from mcucomp.ops.conv2d_s8 import conv_path, ring_rows_staged
from mcucomp.pipeline import lower_model, verify_model
from mcucomp.show import format_node
from mcucomp.target.verify import verify_on_target

from conv2d_s8_cases import CASES, add_qlinearconv, deny_scratch, qdq_model, qlinearconv_model
from qmodels import ConvCase, QModel, add_qdq_conv, check_qmodel, conv_acc, conv_fixed_reference, pick_scale
from target_boards import CORE_BOARDS


def test_qdq_groups_onnxruntime_fuses(tmp_path):
    """Float I/O as quantize_static writes it: onnxruntime runs every group as an integer QLinearConv."""
    qm, _ = qdq_model("f")
    ops = check_qmodel(qm, tmp_path, seeds=range(6))
    assert [ops[f"c{i}_conv_node"] for i in range(len(CASES))] == ["conv2d_s8"] * len(CASES)


def test_fixed_point_requantization(tmp_path):
    """`--requant fixed`: every conv (including those onnxruntime runs in float) matches mcucomp.fixedpoint."""
    qm, infos = qdq_model("q")

    def reference(codes):
        return {info["output"]: conv_fixed_reference(info, codes) for info in infos}

    ops = check_qmodel(qm, tmp_path, seeds=range(3), reference=reference, requant="fixed")
    assert [ops[f"c{i}_conv_node"] for i in range(len(CASES))] == ["conv2d_s8"] * len(CASES)


@pytest.mark.parametrize("scratch", ["granted", "denied"])
@pytest.mark.parametrize("board", CORE_BOARDS)
def test_every_path_on_target_equals_host(tmp_path, board, scratch, monkeypatch):
    """The SIMD (DSP) and ARMv6-M loops of every path, tails included, equal the portable host build bit for bit;
    uint8 weights exercise the w_zp terms."""
    if scratch == "denied":
        deny_scratch(monkeypatch)
    for dtype in (np.int8, np.uint8):
        out = tmp_path / np.dtype(dtype).name
        mcucomp.compile_model(qlinearconv_model(dtype, dtype).model(), out, name="m", board=board)
        result = verify_on_target(out, board, inputs=3, seed=0, timeout_s=120)
        assert result.status == "ok", result.detail
        assert result.mismatching and not any(result.mismatching.values()), result.mismatching


@pytest.mark.parametrize("scratch", ["granted", "denied"])
def test_cases_take_every_path_and_show_names_it(scratch, monkeypatch):
    """The cases above (also the on-target test's) reach each C path; `mcucomp show` names the path per layer."""
    if scratch == "denied":
        deny_scratch(monkeypatch)
    g, order = lower_model(qlinearconv_model(np.int8, np.int8).model())[:2]
    convs = [node for node in order if node.op == "conv2d_s8"]
    paths = {node.name: format_node(0, node, g).split()[2].removesuffix("/nhwc") for node in convs}
    # granted: the planner keeps the pixel-pair depthwise path where its margin does not grow the arena
    extra = ("im2col", "few_channels") if scratch == "granted" else ("direct", "local", "depthwise3x3_ring",
                                                                      "few_channels")
    want = {f"conv2d_s8.{p}" for p in ("general", "depthwise", "depthwise3x3", "pointwise", *extra)}
    assert want <= set(paths.values()) <= want | {"conv2d_s8.depthwise3x3_ring"}, paths
    assert paths["c12_y_node"] == "conv2d_s8.pointwise"
    assert paths["c11_y_node"] in ({"conv2d_s8.depthwise3x3", "conv2d_s8.depthwise3x3_ring"} if scratch == "granted"
                                   else {"conv2d_s8.depthwise3x3_ring"})
    assert {REGISTRY["conv2d_s8"].cost_terms(node, g)[0] for node in convs} == {p.split(".")[1]
                                                                                 for p in paths.values()}


@pytest.mark.parametrize("scratch", ["granted", "denied"])
def test_qlinearconv(tmp_path, scratch, monkeypatch):
    """QOperator QLinearConv with int8 activations and weights (im2col or, scratch denied, local and direct)."""
    if scratch == "denied":
        deny_scratch(monkeypatch)
    ops = check_qmodel(qlinearconv_model(np.int8, np.int8), tmp_path, seeds=range(4))
    assert [ops[f"c{i}_y_node"] for i in range(len(CASES))] == ["conv2d_s8"] * len(CASES)


@pytest.mark.parametrize("boundary", ["f", "q"])
def test_qdq_uint8_activations(boundary, tmp_path):
    """uint8 activations (int8 and uint8 weights) as quantize_static writes them (float I/O), or on uint8 graph I/O
    (recode8 at the boundary): onnxruntime fuses both; mcucomp runs them as int8 inside, bit-exact."""
    rng = np.random.default_rng(11)
    qm = QModel(np.uint8)
    for i, case in enumerate(CASES):
        add_qdq_conv(qm, f"c{i}", case, rng, boundary, w_dtype=np.uint8 if i % 2 else np.int8)
    ops = check_qmodel(qm, tmp_path, seeds=range(4))
    assert [ops[f"c{i}_conv_node"] for i in range(len(CASES))] == ["conv2d_s8"] * len(CASES)


def test_qlinearconv_uint8_io(tmp_path):
    """QLinearConv on uint8 graph I/O, uint8 and int8 weights: recode8 at the boundary, int8 kernels inside."""
    rng = np.random.default_rng(12)
    qm = QModel(np.uint8)
    for i, case in enumerate(CASES[:6]):
        add_qlinearconv(qm, f"c{i}", case, rng, np.uint8, np.uint8 if i % 2 else np.int8)
    ops = check_qmodel(qm, tmp_path, seeds=range(4))
    assert [ops[f"c{i}_y_node"] for i in range(6)] == ["conv2d_s8"] * 6
    assert list(ops.values()).count("recode8") == 12


@pytest.mark.parametrize("dtype", [np.uint8, np.int8])
def test_convinteger_chain(dtype, tmp_path):
    """ConvInteger → Add(int32 bias [1,C,1,1]) → DequantizeLinear (per tensor or per channel) → QuantizeLinear."""
    rng = np.random.default_rng(13)
    qm = QModel(dtype)
    t = qm.act_dtype.type
    off = qm.zp_offset
    for i, case in enumerate(CASES[:9]):
        cin_g = case.x[1] // case.group
        x_zp = int(rng.integers(-40, 40))
        w = rng.integers(-127, 128, (case.m, cin_g) + case.k).astype(np.int8)
        bias = rng.integers(-3000, 3000, case.m).astype(np.int32)
        acc = conv_acc(rng.integers(-128, 128, case.x), x_zp, w, 0, bias, case.strides, case.pads, case.dilations,
                       case.group)
        acc_scale = rng.uniform(1e-5, 1e-4, case.m if i % 2 else 1).astype(np.float32)
        y_scale = pick_scale(acc * acc_scale.reshape((1, -1) + (1,) * (acc.ndim - 2)), rng)
        x = qm.raw_input(f"c{i}_x", case.x, dtype)
        qm.node("ConvInteger", [x, qm.init(f"c{i}_w", w), qm.init(f"c{i}_xz", t(x_zp + off))], [f"c{i}_acc"],
                kernel_shape=list(case.k), strides=case.strides, pads=case.pads, dilations=case.dilations,
                group=case.group)
        qm.node("Add", [f"c{i}_acc", qm.init(f"c{i}_b", bias.reshape((1, -1) + (1,) * len(case.k)))],
                [f"c{i}_biased"])
        qm.node("DequantizeLinear", [f"c{i}_biased", qm.init(f"c{i}_accs", acc_scale if i % 2 else acc_scale[0])],
                [f"c{i}_f"], axis=1)
        qm.node("QuantizeLinear", [f"c{i}_f", qm.init(f"c{i}_ys", np.float32(y_scale)),
                                   qm.init(f"c{i}_yz", t(int(rng.integers(-30, 30)) + off))], [f"c{i}_y"])
        qm.raw_output(f"c{i}_y", acc.shape, dtype)
    ops = check_qmodel(qm, tmp_path, seeds=range(4))
    assert [ops[f"c{i}_acc_node"] for i in range(9)] == ["conv2d_s8"] * 9


def test_uint8_tensor_that_cannot_run_as_int8_is_named(tmp_path):
    """A uint8 QLinearConv output also read by a Cast (which sees the uint8 values): rejected, naming the tensor."""
    qm = QModel(np.uint8)
    add_qlinearconv(qm, "c0", CASES[0], np.random.default_rng(14), np.uint8, np.int8)
    qm.node("Cast", ["c0_y"], ["pooled"], to=6)  # int32
    qm.raw_output("pooled", (1, 5, 1, 1), np.int32)
    with pytest.raises(UnsupportedError, match="uint8 tensor 'c0_y'"):
        mcucomp.compile_model(qm.model(), tmp_path, name="m")


def _loop_events(geom: dict, path: str, down: bool, quads: bool):
    """The byte reads of x and writes of y of conv2d_s8's C loop for `path`, in order: ("r", index) / ("w", index)
    (a window's taps in the padding read nothing). Mirrors runtime_c/kernels/conv2d_s8_<path>.c; quads: the depthwise
    DSP order (four channels at a time), and for depthwise_ring the staged rows of its full blocks (input row oy + 1
    read before output row oy is written)."""
    n, c_in, h, w = geom["n"], geom["c_in"], geom["h_in"], geom["w_in"]
    c_out, ho, wo = geom["c_out"], geom["h_out"], geom["w_out"]
    cin_g, cout_g = c_in // geom["group"], c_out // geom["group"]

    def window(q, channels):
        img, r = divmod(q, ho * wo)
        oy, ox = divmod(r, wo)
        for ky in range(geom["k_h"]):
            for kx in range(geom["k_w"]):
                iy = oy * geom["stride_h"] - geom["pad_t"] + ky * geom["dil_h"]
                ix = ox * geom["stride_w"] - geom["pad_l"] + kx * geom["dil_w"]
                if 0 <= iy < h and 0 <= ix < w:
                    yield from (("r", ((img * h + iy) * w + ix) * c_in + ch) for ch in channels)

    pixels = n * ho * wo
    pairs = [tuple(int(v) for v in pair) for pair in zip(*pixel_pairs(pixels, down))]
    if path == "depthwise":  # pixel pairs, the second pixel's outputs deferred to the end of the pair
        step = 4 if quads else 1
        lone = c_out > DW_DEFER
        for q0 in range(0, pixels, 1 if lone else 2):
            q1 = q0 if lone else min(q0 + 1, pixels - 1)
            for ch in range(0, c_out, step):
                block = range(ch, min(ch + step, c_out)) if ch + step <= c_out else range(ch, ch + 1)
                if ch + step > c_out:  # the C % 4 left go one by one
                    for k in range(ch, c_out):
                        yield from window(q0, range(k, k + 1))
                        yield from window(q1, range(k, k + 1))
                        yield ("w", q0 * c_out + k)
                    break
                yield from window(q0, block)
                yield from window(q1, block)
                yield from (("w", q0 * c_out + k) for k in block)
            if q1 != q0:
                yield from (("w", q1 * c_out + k) for k in range(c_out))
    elif path == "depthwise_ring":  # block-major in place, reads below the current pixel from the ring
        for b in range(0, c_out, 4):
            block = range(b, min(b + 4, c_out))
            if quads and ring_rows_staged(geom, True) and len(block) == 4:  # mcu_conv2d_s8_dw_ring_rows
                for img in range(n):
                    rows = [[("r", ((img * h + iy) * w + ix) * c_in + k) for ix in range(w) for k in block]
                            for iy in range(h)]
                    yield from rows[0]
                    for oy in range(h):
                        yield from rows[oy + 1] if oy + 1 < h else ()
                        yield from (("w", ((img * h + oy) * w + ox) * c_out + k) for ox in range(w) for k in block)
                continue
            for q in range(pixels):
                yield from (e for e in window(q, block) if e[1] // c_in >= q)
                yield from (("r", q * c_in + k) for k in block)
                yield from (("w", q * c_out + k) for k in block)
    elif path == "general":
        for q in (reversed(range(pixels)) if down else range(pixels)):
            for oc in range(c_out):
                yield from window(q, range(oc // cout_g * cin_g, (oc // cout_g + 1) * cin_g))
                yield ("w", q * c_out + oc)
    else:  # the GEMM paths: im2col gathers the pair first; pointwise and direct re-read it per output channel pair
        # (the portable loops; the pointwise DSP sweep reads a pair once before its writes, a subset of these reads)
        for q0, q1 in pairs:
            if path in ("im2col", "local", "few_channels"):
                yield from window(q0, range(c_in))
                yield from window(q1, range(c_in))
            for oc in range(0, c_out, 2):
                if path not in ("im2col", "local", "few_channels"):
                    yield from window(q0, range(c_in))
                    yield from window(q1, range(c_in))
                yield from (("w", q * c_out + k) for q in (q0, q1) for k in (oc, min(oc + 1, c_out - 1)))


def _overlap_safe(events: list, x_bytes: int, d: int) -> bool:
    """True when y placed d bytes after x (offset(y) - offset(x) = d) never overwrites an x byte still to be read."""
    last_read = np.full(x_bytes, -1)
    for t, (kind, i) in enumerate(events):
        if kind == "r":
            last_read[i] = t
    return all(not (0 <= i + d < x_bytes) or last_read[i + d] <= t
               for t, (kind, i) in enumerate(events) if kind == "w")


@pytest.mark.parametrize("scratch", ["granted", "denied"])
def test_overlap_permissions_hold_for_the_simulated_loops(scratch, monkeypatch):
    """Every path's overlap permission (mcucomp/ops/_overlap.py *_nhwc), at its margin, its floor and shifts next
    to them, never lets an output byte land on an input byte the loop still reads (depthwise: both channel orders)."""
    if scratch == "denied":
        deny_scratch(monkeypatch)
    g, order = lower_model(qlinearconv_model(np.int8, np.int8).model())[:2]
    seen = set()
    for node in (n for n in order if n.op == "conv2d_s8"):
        path, geom = conv_path(node, g), dict(window_geom(node, g, group=node.attrs.get("group", 1)))
        permission = REGISTRY["conv2d_s8"].overlap_margin(node, g)
        x_bytes = g.tensors[node.inputs[0]].nbytes
        floor = -g.tensors[node.outputs[0]].nbytes if permission.floor is None else permission.floor
        shifts = {permission.margin, floor, *range(max(floor, permission.margin - 8), permission.margin + 1),
                  *range(floor, min(permission.margin, floor + 8) + 1)}
        for quads in ((False, True) if path in ("depthwise", "depthwise_ring") else (False,)):
            events = list(_loop_events(geom, path, descending(node, g), quads))
            bad = [d for d in sorted(shifts) if not _overlap_safe(events, x_bytes, d)]
            assert bad == [], (node.name, path, permission, bad)
        seen.add(path)
    gemm = ("im2col",) if scratch == "granted" else ("direct", "local", "depthwise_ring")
    assert seen >= {"pointwise", "depthwise", "general", "few_channels", *gemm}, seen


#: Per-channel weight scales TFLite models carry: a nearly dead channel (weight scale 1e-11, so its bias scale
#: x_scale · 1e-11 is about 1e-13 and its requantization multiplier about 1e-12, below fixed point's 2^-32: a zero
#: multiplier, as TFLite's QuantizeMultiplier makes it), and one tensor spanning 1e-12 … 1e2.
DEAD_CHANNEL = np.float32([0.01, 0.004, 1e-11, 0.02, 0.008, 0.015, 0.003, 0.012])
WIDE_RANGE = np.geomspace(1e-12, 1e2, 15).astype(np.float32)
SCALE_CASES = [
    (ConvCase((1, 5, 6, 7), 8, (3, 3), pads=[1, 1, 1, 1]), DEAD_CHANNEL),
    (ConvCase((1, 8, 6, 5), 8, (3, 3), pads=[1, 1, 1, 1], group=8), DEAD_CHANNEL),  # depthwise
    (ConvCase((1, 16, 4, 5), 8, (1, 1), act="relu", y_zp=-128), DEAD_CHANNEL),  # pointwise
    (ConvCase((1, 16, 5, 3), 15, (1, 1)), WIDE_RANGE),
    (ConvCase((1, 3, 7, 6), 15, (3, 3), strides=[2, 2], pads=[0, 0, 1, 1]), WIDE_RANGE),  # few channels
]


def _scale_range_model() -> QModel:
    """The SCALE_CASES side by side, float I/O as quantize_static writes it (onnxruntime fuses QLinearConvs)."""
    rng = np.random.default_rng(21)
    qm = QModel()
    for i, (case, w_scale) in enumerate(SCALE_CASES):
        add_qdq_conv(qm, f"s{i}", case, rng, "f", w_scale=w_scale)
    return qm


@pytest.mark.parametrize("requant", ["float", "fixed"])
def test_tiny_and_wide_weight_scales_compile_and_match_onnxruntime(tmp_path, requant):
    """A nearly dead channel (bias scale ~1e-13) and per-channel scales over 1e-12 … 1e2 compile, equal the integer
    reference bit for bit and onnxruntime within 1 LSB, in both requantization modes; `verify` says OK."""
    qm = _scale_range_model()
    model = qm.model()
    bias_scales = [np.asarray(v).reshape(-1) for k, v in qm.inits.items() if k.endswith("_b_scale")]
    assert min(float(s.min()) for s in bias_scales) < 1e-12
    ops = check_qmodel(qm, tmp_path / "check", seeds=range(3), requant=requant)
    assert [ops[f"s{i}_conv_node"] for i in range(len(SCALE_CASES))] == ["conv2d_s8"] * len(SCALE_CASES)
    onnx.save(model, tmp_path / "m.onnx")
    result = verify_model(str(tmp_path / "m.onnx"), tmp_path / "verify", inputs=3, progress=None, requant=requant)
    assert result.ok, [(o.name, o.mismatching) for o in result.outputs]


@pytest.mark.parametrize("board,requant", [(b, None) for b in CORE_BOARDS] + [(CORE_BOARDS[0], "fixed")])
def test_tiny_and_wide_weight_scales_on_target_equal_host(tmp_path, board, requant):
    """The same model in QEMU on every core (its default requantization; fixed also on the M4) equals the host."""
    options = {"requant": requant} if requant else {}
    mcucomp.compile_model(_scale_range_model().model(), tmp_path, name="m", board=board, fit_check=False, **options)
    result = verify_on_target(tmp_path, board, inputs=3, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and not any(result.mismatching.values()), result.mismatching
