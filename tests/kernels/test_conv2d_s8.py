"""conv2d_s8 bit-exact against onnxruntime (QDQ groups it fuses, QLinearConv) and against the fixed-point reference.

Odd shapes: 1x1 images, channel counts that are not multiples of 4, asymmetric pads, stride 2 on odd sizes,
depthwise (multiplier 1 and 2), grouped, dilated, 1-D and pointwise convolutions (the two fast paths included).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import mcucomp
import mcucomp.pipeline
from mcucomp.errors import UnsupportedError
from mcucomp.ops import REGISTRY
from mcucomp.ops._overlap import descending, pixel_pairs
from mcucomp.ops._window import window_geom
from mcucomp.ops.conv2d_s8 import DW_DEFER, conv_path, ring_rows_staged
from mcucomp.pipeline import lower_model
from mcucomp.show import format_node
from mcucomp.target.verify import verify_on_target
from mcucomp.verify import verify_model

from qmodels import (QRANGE, ConvCase, QModel, add_qdq_conv, check_qmodel, conv_acc, conv_fixed_reference, ort_scale,
                     pick_scale)
from target_boards import CORE_BOARDS, DSP_BOARDS

CASES = [
    ConvCase((1, 3, 1, 1), 5, (1, 1)),
    ConvCase((1, 3, 1, 1), 4, (3, 3), pads=[1, 1, 1, 1]),
    ConvCase((1, 5, 7, 9), 7, (3, 3), strides=[2, 2], pads=[0, 1, 2, 1], ties=True),
    ConvCase((2, 5, 7, 6), 5, (3, 3), pads=[1, 1, 1, 1], group=5, act="relu", y_zp=-128, ties=True),
    ConvCase((1, 5, 8, 7), 10, (3, 3), strides=[2, 2], pads=[1, 0, 1, 2], group=5),
    ConvCase((1, 4, 9, 9), 4, (3, 3), dilations=[2, 2], pads=[2, 1, 2, 3], group=4, ties=True),
    ConvCase((1, 6, 13), 6, (5,), strides=[2], pads=[2, 1], group=6),
    ConvCase((1, 6, 6, 7), 9, (2, 3), group=3, dilations=[2, 1]),
    ConvCase((1, 7, 11), 3, (3,), strides=[2], pads=[2, 1], dilations=[2]),
    ConvCase((1, 7, 6, 5), 11, (1, 1), bias=False, ties=True),
    ConvCase((2, 7, 7, 5), 6, (1, 1), strides=[2, 2]),
    ConvCase((1, 64, 25, 5), 64, (3, 3), pads=[1, 1, 1, 1], group=64, act="relu", y_zp=-128),
    ConvCase((1, 64, 25, 5), 24, (1, 1), act="relu", y_zp=-128, ties=True),
    ConvCase((1, 9, 3, 3), 5, (1, 1)),  # pointwise: odd pixel count, c_in % 4 == 1, odd c_out
    ConvCase((1, 1, 13, 6), 5, (5, 4), strides=[2, 2], pads=[2, 1, 2, 2]),  # im2col / local: KWS-like first conv
    ConvCase((1, 6, 5, 5), 3, (3, 3), pads=[1, 1, 1, 1], dilations=[1, 2]),  # im2col / direct: dilated, k % 4 == 2
    ConvCase((1, 6, 9, 8), 6, (3, 3), strides=[2, 2], pads=[1, 1, 0, 0], group=6),  # depthwise 3x3, stride 2
    ConvCase((1, 10, 7, 6), 10, (3, 3), pads=[1, 1, 1, 1], group=10),  # depthwise 3x3: 4 + 4 + 2 channels
    ConvCase((1, 7, 8, 9), 7, (2, 3), strides=[1, 2], pads=[0, 1, 1, 1], group=7),  # depthwise, not 3x3
    ConvCase((1, 16, 6, 6), 8, (1, 1), strides=[2, 2]),  # pointwise, strided
    ConvCase((1, 32, 5, 3), 7, (1, 1)),  # pointwise, k % 16 == 0: the DSP block loop, a lone channel, a lone pixel
    ConvCase((1, 16, 6, 7), 4, (3, 3), pads=[1, 1, 1, 1]),  # im2col k = 144; direct: kernel rows of 48 in one loop
    ConvCase((1, 8, 3, 5), 6, (1, 1)),  # pointwise k = 8: the DSP block loop's 4-tap steps without its 16-tap loop
    # depthwise 3x3 above DW_DEFER channels (pixels one by one), c % 4 == 2; stride 2: never the ring variant
    ConvCase((1, 262, 5, 4), 262, (3, 3), strides=[2, 2], pads=[1, 1, 1, 1], group=262),
    # pointwise on DSP cores with an FPU (mcu_conv2d_s8_pw_sweep / _sweep1): step loops of 4, 32 and 64 taps, k = 8,
    # 16, 32 without the loop, all pairs in one sweep (c_out % 4 == 0) or one a pair (the GEMM block takes c_out % 4), a
    # lone pixel with c_out % 4 == 1, 2, one pixel, the widened buffer's limit (256 taps) and past it (the GEMM block)
    ConvCase((1, 12, 3, 3), 6, (1, 1)),
    ConvCase((1, 8, 2, 5), 12, (1, 1)),
    ConvCase((1, 4, 2, 3), 8, (1, 1)),
    ConvCase((1, 24, 1, 3), 5, (1, 1)),
    ConvCase((1, 16, 3, 3), 4, (1, 1), act="relu", y_zp=-128),
    ConvCase((1, 48, 2, 2), 10, (1, 1)),
    ConvCase((1, 128, 1, 1), 9, (1, 1)),
    ConvCase((1, 256, 1, 3), 6, (1, 1)),
    ConvCase((1, 260, 1, 1), 4, (1, 1)),
    # k % 32 == 0 past one turn: 64 taps a turn, k % 64 == 32 entering the first at its middle (pairs and a lone pixel)
    ConvCase((1, 96, 3, 3), 8, (1, 1)),
    # few_channels (c_in <= 4): VWW's first conv (stride 2, pads at the end only, 8 channels) on 3x3 = 9 pixels
    ConvCase((1, 3, 7, 7), 8, (3, 3), strides=[2, 2], pads=[0, 0, 1, 1]),
    # IC-like, stride 1, all borders, 13 channels (three quads and a lone one), per-tensor weight scale
    ConvCase((1, 3, 6, 7), 13, (3, 3), pads=[1, 1, 1, 1], per_tensor=True),
    ConvCase((1, 4, 5, 6), 6, (3, 3), pads=[1, 0, 1, 2], act="relu", y_zp=-128),  # c_in 4: one quad, two left
    ConvCase((1, 2, 7, 5), 7, (2, 3), strides=[2, 1], pads=[1, 1, 0, 1]),  # c_in 2, kernel rows of 6 bytes
    ConvCase((1, 3, 5, 5), 3, (3, 3), pads=[1, 1, 1, 1]),  # no full quad: the GEMM block alone
    ConvCase((1, 2, 6, 6), 4, (2, 2), dilations=[2, 2], pads=[1, 1, 0, 0]),  # dilated: every window gathered checked
    ConvCase((1, 4, 6, 6), 4, (2, 4), strides=[1, 2], pads=[0, 1, 1, 1]),  # kernel rows of 16 bytes (gathered)
    ConvCase((2, 1, 9, 6), 12, (5, 4), strides=[2, 2], pads=[2, 1, 2, 2], ties=True),  # KWS-like, batch 2
    ConvCase((1, 1, 8, 7), 6, (3, 3), pads=[1, 1, 1, 1]),  # kernel rows of 3 bytes: bytes left only, odd count
    ConvCase((1, 2, 13), 5, (5,), strides=[2], pads=[2, 1]),  # 1-D
    # depthwise 3x3, the DSP assembly's slide bodies (runs of pairs inside the input) beside table pairs: C = 8 and
    # 128 stride 1, C = 16 stride 2, C = 32 with dilated rows
    ConvCase((1, 8, 5, 9), 8, (3, 3), pads=[1, 1, 1, 1], group=8),
    ConvCase((1, 128, 4, 6), 128, (3, 3), pads=[1, 1, 1, 1], group=128, act="relu", y_zp=-128),
    ConvCase((1, 16, 7, 11), 16, (3, 3), strides=[2, 2], pads=[1, 1, 1, 1], group=16),
    ConvCase((1, 32, 7, 6), 32, (3, 3), pads=[2, 1, 2, 1], dilations=[2, 1], group=32),
    ConvCase((1, 16, 4, 7), 16, (3, 3), pads=[1, 1, 1, 1], group=16, per_tensor=True),  # one scale for all channels
    # above DW_DEFER channels with C % 4 == 0: windows inside the input, still pixel by pixel (no slide runs)
    ConvCase((1, 512, 3, 5), 512, (3, 3), pads=[1, 1, 1, 1], group=512),
]


def _qdq_model(boundary: str, cases=CASES) -> tuple[QModel, list[dict]]:
    """All cases side by side in one QDQ model."""
    rng = np.random.default_rng(7)
    qm = QModel()
    infos = [add_qdq_conv(qm, f"c{i}", case, rng, boundary) for i, case in enumerate(cases)]
    return qm, infos


def test_qdq_groups_onnxruntime_fuses(tmp_path):
    """Float I/O as quantize_static writes it: onnxruntime runs every group as an integer QLinearConv."""
    qm, _ = _qdq_model("f")
    ops = check_qmodel(qm, tmp_path, seeds=range(6))
    assert [ops[f"c{i}_conv_node"] for i in range(len(CASES))] == ["conv2d_s8"] * len(CASES)


def test_fixed_point_requantization(tmp_path):
    """`--requant fixed`: every conv (including those onnxruntime runs in float) matches mcucomp.fixedpoint."""
    qm, infos = _qdq_model("q")

    def reference(codes):
        return {info["output"]: conv_fixed_reference(info, codes) for info in infos}

    ops = check_qmodel(qm, tmp_path, seeds=range(3), reference=reference, requant="fixed")
    assert [ops[f"c{i}_conv_node"] for i in range(len(CASES))] == ["conv2d_s8"] * len(CASES)


def _add_qlinearconv(qm: QModel, name: str, case: ConvCase, rng, dtype, w_dtype) -> None:
    """QLinearConv on 8-bit graph I/O; uint8 weights get a per-tensor zero point of 128-ish."""
    cin_g = case.x[1] // case.group
    x_scale, y_zp = float(rng.uniform(0.01, 0.05)), int(rng.integers(-30, 30))
    x_zp = int(rng.integers(-40, 40))
    w_zp = 0
    if np.dtype(dtype) == np.uint8:
        x_zp, y_zp = x_zp + 128, y_zp + 128
    w = rng.integers(-127, 128, (case.m, cin_g) + case.k)
    if np.dtype(w_dtype) == np.uint8:
        w_zp = int(rng.integers(120, 136))
        w = np.clip(w + w_zp, 0, 255)
    w = w.astype(w_dtype)
    w_scale = rng.uniform(0.002, 0.02, 1 if case.per_tensor else case.m).astype(np.float32)
    bias = rng.integers(-3000, 3000, case.m).astype(np.int32)
    x = qm.raw_input(f"{name}_x", case.x, dtype)
    lo, hi = QRANGE[np.dtype(dtype)]
    acc = conv_acc(rng.integers(lo, hi + 1, case.x), x_zp, w, w_zp, bias, case.strides, case.pads, case.dilations,
                   case.group)
    y_scale = pick_scale(acc * ort_scale(x_scale, w_scale, 1.0).reshape((1, -1) + (1,) * (acc.ndim - 2)), rng)
    inputs = [x, qm.init(f"{name}_xs", np.float32(x_scale)), qm.init(f"{name}_xz", np.array(x_zp, dtype)),
              qm.init(f"{name}_w", w), qm.init(f"{name}_ws", w_scale),
              qm.init(f"{name}_wz", np.full(len(w_scale), w_zp, w_dtype)),
              qm.init(f"{name}_ys", np.float32(y_scale)), qm.init(f"{name}_yz", np.array(y_zp, dtype)),
              qm.init(f"{name}_b", bias)]
    qm.node("QLinearConv", inputs, [f"{name}_y"], kernel_shape=list(case.k), strides=case.strides, pads=case.pads,
            dilations=case.dilations, group=case.group)
    qm.raw_output(f"{name}_y", acc.shape, dtype)


def _qlinearconv_model(dtype, w_dtype, seed=8) -> QModel:
    """Every case as a QLinearConv side by side."""
    rng = np.random.default_rng(seed)
    qm = QModel(dtype)
    for i, case in enumerate(CASES):
        _add_qlinearconv(qm, f"c{i}", case, rng, dtype, w_dtype)
    return qm


def _deny_scratch(monkeypatch):
    """Make memory.choose_scratch deny every optional scratch: the group-1 convs take the local or direct path."""
    def deny(g, order, io_in_arena, alignment):
        for node in order:
            if REGISTRY[node.op].scratch_optional(node, g):
                node.attrs["scratch"] = False

    monkeypatch.setattr(mcucomp.pipeline, "choose_scratch", deny)


@pytest.mark.parametrize("scratch", ["granted", "denied"])
@pytest.mark.parametrize("board", CORE_BOARDS)
def test_every_path_on_target_equals_host(tmp_path, board, scratch, monkeypatch):
    """The SIMD (DSP) and ARMv6-M loops of every path, tails included, equal the portable host build bit for bit;
    uint8 weights exercise the w_zp terms."""
    if scratch == "denied":
        _deny_scratch(monkeypatch)
    for dtype in (np.int8, np.uint8):
        out = tmp_path / np.dtype(dtype).name
        mcucomp.compile_model(_qlinearconv_model(dtype, dtype).model(), out, name="m", board=board)
        result = verify_on_target(out, board, inputs=3, seed=0, timeout_s=120)
        assert result.status == "ok", result.detail
        assert result.mismatching and not any(result.mismatching.values()), result.mismatching


#: Depthwise 3x3 with a fused Relu or Clip narrower than int8 (the assembly's bytewise clamp), and the widths at the
#: in-place variant's limits: rows of one and two pixels, the widest staged row (61 pixels; mcu_conv2d_s8_dw_ring_rows)
#: and 62 pixels (a lag of 63: still the pixel ring); stride 2 beside them.
DW_EDGE_CASES = [
    ConvCase((1, 8, 5, 9), 8, (3, 3), pads=[1, 1, 1, 1], group=8, act="relu", y_zp=-40),
    ConvCase((1, 16, 4, 7), 16, (3, 3), pads=[1, 1, 1, 1], group=16, act="clip"),
    ConvCase((2, 8, 3, 1), 8, (3, 3), pads=[1, 1, 1, 1], group=8, act="clip"),
    ConvCase((1, 4, 2, 2), 4, (3, 3), pads=[1, 1, 1, 1], group=4),
    ConvCase((1, 4, 3, 61), 4, (3, 3), pads=[1, 1, 1, 1], group=4, act="relu", y_zp=-40),
    ConvCase((1, 4, 2, 62), 4, (3, 3), pads=[1, 1, 1, 1], group=4),
    ConvCase((1, 16, 7, 11), 16, (3, 3), strides=[2, 2], pads=[1, 1, 1, 1], group=16, act="clip"),
]


@pytest.mark.parametrize("scratch", ["granted", "denied"])
def test_depthwise_edge_cases(tmp_path, scratch, monkeypatch):
    """The edge cases on the host against the integer reference and onnxruntime; denied its margin, every stride-1
    case runs in place (depthwise3x3_ring)."""
    if scratch == "denied":
        _deny_scratch(monkeypatch)
    qm, _ = _qdq_model("q", DW_EDGE_CASES)
    check_qmodel(qm, tmp_path)
    g, order = lower_model(qm.model())[:2]
    paths = [conv_path(n, g) for n in order if n.op == "conv2d_s8"]
    assert paths[-1] == "depthwise" and (scratch == "granted" or set(paths[:-1]) == {"depthwise_ring"}), paths


@pytest.mark.parametrize("scratch", ["granted", "denied"])
@pytest.mark.parametrize("board", DSP_BOARDS)
def test_depthwise_edge_cases_on_target_equal_host(tmp_path, board, scratch, monkeypatch):
    """On the DSP cores the edge cases' assembly (quads, or in place the staged rows and the pixel ring) equals the
    portable host build bit for bit, the clamp included."""
    if scratch == "denied":
        _deny_scratch(monkeypatch)
    qm, _ = _qdq_model("q", DW_EDGE_CASES)
    mcucomp.compile_model(qm.model(), tmp_path, name="m", board=board)
    result = verify_on_target(tmp_path, board, inputs=3, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and not any(result.mismatching.values()), result.mismatching


@pytest.mark.parametrize("board", ["nucleo-l4r5zi", "nucleo-u575zi"])
def test_few_channels_fixed_requant_on_target_equals_host(tmp_path, board):
    """The few-channels cases with `--requant fixed` on DSP cores (their GEMM fallback there) equal the host build;
    the float mode's assembly is the on-target test above."""
    few = [i for i, case in enumerate(CASES) if case.x[1] <= 4 and case.group == 1 and case.k != (1, 1)]
    rng = np.random.default_rng(9)
    qm = QModel(np.int8)
    for i in few:
        _add_qlinearconv(qm, f"c{i}", CASES[i], rng, np.int8, np.int8)
    mcucomp.compile_model(qm.model(), tmp_path, name="m", board=board, requant="fixed")
    g, order = lower_model(qm.model(), requant="fixed")[:2]
    assert {conv_path(n, g) for n in order if n.op == "conv2d_s8"} == {"few_channels"}
    result = verify_on_target(tmp_path, board, inputs=3, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and not any(result.mismatching.values()), result.mismatching


@pytest.mark.parametrize("scratch", ["granted", "denied"])
def test_cases_take_every_path_and_show_names_it(scratch, monkeypatch):
    """The cases above (also the on-target test's) reach each C path; `mcucomp show` names the path per layer."""
    if scratch == "denied":
        _deny_scratch(monkeypatch)
    g, order = lower_model(_qlinearconv_model(np.int8, np.int8).model())[:2]
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
        _deny_scratch(monkeypatch)
    ops = check_qmodel(_qlinearconv_model(np.int8, np.int8), tmp_path, seeds=range(4))
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
        _add_qlinearconv(qm, f"c{i}", case, rng, np.uint8, np.uint8 if i % 2 else np.int8)
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
    _add_qlinearconv(qm, "c0", CASES[0], np.random.default_rng(14), np.uint8, np.int8)
    qm.node("Cast", ["c0_y"], ["pooled"], to=6)  # int32
    qm.raw_output("pooled", (1, 5, 1, 1), np.int32)
    with pytest.raises(UnsupportedError, match="uint8 tensor 'c0_y'"):
        mcucomp.compile_model(qm.model(), tmp_path, name="m")


def _loop_events(geom: dict, path: str, down: bool, quads: bool):
    """The byte reads of x and writes of y of conv2d_s8's C loop for `path`, in order: ("r", index) / ("w", index)
    (a window's taps in the padding read nothing). Mirrors runtime_c/kernels/conv2d_s8.c; quads: the depthwise DSP
    order (four channels at a time), and for depthwise_ring the staged rows of its full blocks (input row oy + 1
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
        _deny_scratch(monkeypatch)
    g, order = lower_model(_qlinearconv_model(np.int8, np.int8).model())[:2]
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
