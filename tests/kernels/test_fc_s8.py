"""fc_s8 bit-exact against onnxruntime (QDQ Gemm and MatMul groups, QLinearMatMul, MatMulInteger chains) and
against the fixed-point reference: K not a multiple of 4, one-row inputs, batched MatMul, per-column weights."""

from __future__ import annotations

import numpy as np
import pytest

import mcucomp
from mcucomp.target.verify import verify_on_target
from qmodels import QModel, check_qmodel, fixed_requant, ort_scale, pick_scale
from target_boards import CORE_BOARDS

# On CORE_BOARDS: the SXTB16/SMLAD path on the M4, M7, M33 and M55; the portable path (32-bit requant) on the M0+.

# (op, A shape, N, transB, bias, activation): K is A's last dim
CASES = [
    ("Gemm", (1, 7), 5, 1, True, None),
    ("Gemm", (3, 13), 10, 0, True, None),
    ("Gemm", (2, 1), 3, 1, False, None),
    ("Gemm", (4, 300), 6, 1, True, "relu"),
    ("MatMul", (1, 7), 5, 0, False, None),
    ("MatMul", (5, 13), 11, 0, False, None),
    ("MatMul", (2, 3, 9), 6, 0, False, None),
    ("MatMul", (2, 1, 4, 5), 3, 0, False, "relu"),
    ("MatMul", (3, 259), 4, 0, False, None),
]


def _add_fc(qm: QModel, name: str, case, rng, boundary: str, w_dtype=np.int8, ties: bool = False,
            out_boundary: str | None = None) -> dict:
    """DQ(A), DQ(B per output column, symmetric; uint8 with zero point 128), [DQ(int32 bias)] → Gemm/MatMul →
    [Relu] → Q; activations of the model's type. Activation "relu" has y_zp = qmin (a redundant Relu),
    "relu_kept" does not. With `ties`, small weights of one scale and a power-of-two ratio
    a_scale·w_scale/y_scale: many exact results lie half-way between two codes, where summation orders show."""
    op, a_shape, n, trans_b, has_bias, act = case
    k = a_shape[-1]
    off = qm.zp_offset
    w_off = 128 if np.dtype(w_dtype) == np.uint8 else 0
    a_scale, a_zp = float(rng.uniform(0.01, 0.05)), int(rng.integers(-40, 40)) + off
    w = rng.integers(-4 if ties else -127, 5 if ties else 128, (k, n)).astype(np.int8)
    w_scale = rng.uniform(0.002, 0.02, n).astype(np.float32)
    if ties:
        w_scale[:] = w_scale[0]
    bias = rng.integers(-3000, 3000, n).astype(np.int32) if has_bias else None
    aq, af = qm.act(name, a_shape, a_scale, a_zp, boundary)
    w_stored = (np.ascontiguousarray(w.T) if trans_b else w).astype(np.int16) + w_off
    inputs = [af, qm.const_dq(f"{name}_w", w_stored.astype(w_dtype), w_scale, np.full(n, w_off, w_dtype),
                              axis=0 if trans_b else 1)]
    if bias is not None:
        b_scale = (np.float32(a_scale) * w_scale).astype(np.float32)
        inputs.append(qm.const_dq(f"{name}_b", bias, b_scale, np.zeros(n, np.int32), axis=0))
    sample = rng.integers(-128, 128, a_shape) + off
    acc = (sample.astype(np.int64) - a_zp) @ w.astype(np.int64) + (0 if bias is None else bias.astype(np.int64))
    y_scale = pick_scale(acc * (np.float32(a_scale) * w_scale), rng)
    if ties:
        base = np.float32(np.float32(a_scale) * w_scale[0])
        y_scale = float(base * np.float32(np.exp2(np.round(np.log2(y_scale / base)))))
    y_zp = (-128 if act == "relu" else int(rng.integers(-30, 30))) + off
    attrs = {"transB": trans_b} if op == "Gemm" else {}
    qm.node(op, inputs, [f"{name}_mm"], **attrs)
    y = f"{name}_mm"
    if act:
        qm.node("Relu", [y], [f"{name}_relu"])
        y = f"{name}_relu"
    out = qm.out(y, f"{name}_y", acc.shape, y_scale, y_zp, out_boundary or boundary)
    return dict(input=aq if boundary == "q" else name, output=out, a_zp=a_zp, w=w, bias=bias,
                scale=ort_scale(a_scale, w_scale, y_scale), y_zp=y_zp, lo=y_zp if act else -128)


def test_groups_onnxruntime_runs_in_float(tmp_path):
    """Groups onnxruntime runs as DQ, float MatMul/Gemm (MLAS), Q (int8 graph I/O, a kept Relu, an output type
    different from A's) lower to the integer kernel too: equal to the integer reference, within 1 LSB of
    onnxruntime even on the half-way ties where summation orders show."""
    cases = [("MatMul", (1, 40), 64, 0, False, None), ("MatMul", (5, 13), 11, 0, False, "relu_kept"),
             ("MatMul", (2, 3, 150), 9, 0, False, None), ("MatMul", (64, 300), 20, 0, False, None),
             ("MatMul", (2, 400), 100, 0, False, None), ("MatMul", (3, 1200), 20, 0, False, None),
             ("Gemm", (1, 37), 94, 1, True, "relu_kept"), ("Gemm", (1, 29), 40, 0, True, "relu_kept"),
             ("Gemm", (3, 13), 10, 1, False, "relu_kept")]
    rng = np.random.default_rng(23)
    qm = QModel()
    for i, case in enumerate(cases):
        _add_fc(qm, f"f{i}", case, rng, "q", ties=True)
    _add_fc(qm, f"f{len(cases)}", ("Gemm", (2, 9), 4, 1, True, None), rng, "f", ties=True, out_boundary="q")
    ops = check_qmodel(qm, tmp_path, seeds=range(6))
    assert [ops[f"f{i}_mm_node"] for i in range(len(cases) + 1)] == ["fc_s8"] * (len(cases) + 1)


def _model(boundary: str, cases, dtype=np.int8) -> tuple[QModel, list[dict]]:
    """The cases side by side in one QDQ model (uint8 weights in every other case of a uint8 model)."""
    rng = np.random.default_rng(20)
    qm = QModel(dtype)
    w_types = [np.uint8 if dtype == np.uint8 and i % 2 else np.int8 for i in range(len(cases))]
    return qm, [_add_fc(qm, f"f{i}", case, rng, boundary, w) for i, (case, w) in enumerate(zip(cases, w_types))]


def test_qdq_fused(tmp_path):
    """Float I/O (retyped to uint8 by onnxruntime): QGemm and QLinearMatMul."""
    qm, _ = _model("f", CASES)
    ops = check_qmodel(qm, tmp_path, seeds=range(5))
    assert [ops[f"f{i}_mm_node"] for i in range(len(CASES))] == ["fc_s8"] * len(CASES)


def test_qdq_uint8_activations(tmp_path):
    """quantize_static with uint8 activations, int8 and uint8 weights: QGemm and QLinearMatMul in uint8."""
    qm, _ = _model("f", CASES, np.uint8)
    ops = check_qmodel(qm, tmp_path, seeds=range(4))
    assert [ops[f"f{i}_mm_node"] for i in range(len(CASES))] == ["fc_s8"] * len(CASES)


def test_qdq_gemm_int8_io(tmp_path):
    """int8 graph I/O: onnxruntime still fuses Gemm (QGemm s8s8)."""
    cases = [c for c in CASES if c[0] == "Gemm"]
    qm, _ = _model("q", cases)
    ops = check_qmodel(qm, tmp_path, seeds=range(5))
    assert [ops[f"f{i}_mm_node"] for i in range(len(cases))] == ["fc_s8"] * len(cases)


def test_fixed_point_requantization(tmp_path):
    """`--requant fixed`: Gemm and MatMul (also where onnxruntime runs MatMul in float) match mcucomp.fixedpoint's
    single rounding."""
    qm, infos = _model("q", CASES)

    def reference(codes):
        result = {}
        for info in infos:
            acc = (codes[info["input"]].astype(np.int64) - info["a_zp"]) @ info["w"].astype(np.int64)
            if info["bias"] is not None:
                acc = acc + info["bias"]
            result[info["output"]] = fixed_requant(acc, info["scale"], info["y_zp"], info["lo"], 127,
                                                   axis=acc.ndim - 1, rounding="single").astype(np.int8)
        return result

    ops = check_qmodel(qm, tmp_path, seeds=range(3), reference=reference, requant="fixed")
    assert [ops[f"f{i}_mm_node"] for i in range(len(CASES))] == ["fc_s8"] * len(CASES)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_qlinearmatmul(dtype, tmp_path):
    """QLinearMatMul with 8-bit activations on the graph I/O and constant weights of the same type (per tensor and
    per column; uint8 ones with zero point 128), 2-D and batched."""
    rng = np.random.default_rng(21)
    qm = QModel(dtype)
    t = qm.act_dtype.type
    off = qm.zp_offset
    shapes = [((1, 7), 5), ((5, 13), 11), ((2, 3, 9), 6), ((3, 259), 4)]
    for i, (a_shape, n) in enumerate(shapes):
        k = a_shape[-1]
        a_scale, a_zp, y_zp = float(rng.uniform(0.01, 0.05)), int(rng.integers(-40, 40)), int(rng.integers(-30, 30))
        w = rng.integers(-127, 128, (k, n))
        w_scale = rng.uniform(0.002, 0.02, n if i % 2 else 1).astype(np.float32)
        acc = (rng.integers(-128, 128, a_shape) - a_zp) @ w
        y_scale = pick_scale(acc * (np.float32(a_scale) * w_scale), rng)
        a = qm.raw_input(f"m{i}_a", a_shape, dtype)
        inputs = [a, qm.init(f"m{i}_as", np.float32(a_scale)), qm.init(f"m{i}_az", t(a_zp + off)),
                  qm.init(f"m{i}_w", (w + off).astype(dtype)),
                  qm.init(f"m{i}_ws", w_scale if i % 2 else np.float32(w_scale[0])),
                  qm.init(f"m{i}_wz", np.full(n, off, dtype) if i % 2 else t(off)),
                  qm.init(f"m{i}_ys", np.float32(y_scale)), qm.init(f"m{i}_yz", t(y_zp + off))]
        qm.node("QLinearMatMul", inputs, [f"m{i}_y"])
        qm.raw_output(f"m{i}_y", acc.shape, dtype)
    ops = check_qmodel(qm, tmp_path, seeds=range(5))
    assert [ops[f"m{i}_y_node"] for i in range(len(shapes))] == ["fc_s8"] * len(shapes)


def test_matmulinteger_chain(tmp_path):
    """MatMulInteger → Add(int32 bias) → DequantizeLinear → QuantizeLinear, as in converted TFLite models."""
    rng = np.random.default_rng(22)
    qm = QModel()
    shapes = [((1, 7), 5, True), ((3, 13), 10, False), ((2, 3, 9), 6, True)]
    for i, (a_shape, n, with_bias) in enumerate(shapes):
        k = a_shape[-1]
        a_zp, y_zp = int(rng.integers(-40, 40)), int(rng.integers(-30, 30))
        w = rng.integers(-127, 128, (k, n)).astype(np.int8)
        acc = (rng.integers(-128, 128, a_shape) - a_zp) @ w.astype(np.int64)
        acc_scale = float(rng.uniform(1e-5, 1e-4))
        y_scale = pick_scale(acc * np.float32(acc_scale), rng)
        a = qm.raw_input(f"m{i}_a", a_shape, np.int8)
        qm.node("MatMulInteger", [a, qm.init(f"m{i}_w", w), qm.init(f"m{i}_az", np.int8(a_zp))], [f"m{i}_acc"])
        acc_name = f"m{i}_acc"
        if with_bias:
            qm.node("Add", [acc_name, qm.init(f"m{i}_b", rng.integers(-3000, 3000, n).astype(np.int32))],
                    [f"m{i}_biased"])
            acc_name = f"m{i}_biased"
        qm.node("DequantizeLinear", [acc_name, qm.init(f"m{i}_accs", np.float32(acc_scale))], [f"m{i}_f"])
        qm.node("QuantizeLinear", [f"m{i}_f", qm.init(f"m{i}_ys", np.float32(y_scale)),
                                   qm.init(f"m{i}_yz", np.int8(y_zp))], [f"m{i}_y"])
        qm.raw_output(f"m{i}_y", acc.shape, np.int8)
    ops = check_qmodel(qm, tmp_path, seeds=range(5))
    assert [ops[f"m{i}_acc_node"] for i in range(len(shapes))] == ["fc_s8"] * len(shapes)


#: Every path of mcu_fc_s8: 4-output blocks with feature tails of 0..3, leftover outputs (1..3), 1 row, odd rows.
PATH_CASES = [
    ("Gemm", (1, 64), 12, 1, True, "relu"),
    ("Gemm", (3, 13), 10, 1, True, None),
    ("Gemm", (5, 14), 7, 0, True, None),
    ("MatMul", (1, 7), 5, 0, False, None),
    ("MatMul", (2, 3, 9), 6, 0, False, None),
    ("Gemm", (1, 1), 9, 1, True, None),
    ("MatMul", (3, 259), 4, 0, False, None),
]


def _edge_layer(qm: QModel, name: str) -> str:
    """One row of 4 inputs, 12 outputs: outputs 0-5 have zero weights, so their accumulator is exactly the int32
    bias (INT32_MIN, INT32_MAX, ±1, ±2^30); the per-channel scales put the real multiplier at 2^-32 (a right shift of
    31), 2^-31, just below 1, 1.5 (a left shift), 2^20 and 2^-34 (a zero multiplier)."""
    a_scale, y_scale = 0.5, 1.0
    reals = np.float32([2.0 ** -32, 2.0 ** -31, 1 - 2.0 ** -24, 1.5, 2.0 ** 20, 2.0 ** -34] * 2)
    w_scale = (reals / np.float32(a_scale)).astype(np.float32)
    w = np.zeros((12, 4), np.int8)
    w[6:] = np.arange(-12, 12).reshape(6, 4) * 5
    bias = np.array([-(1 << 31), (1 << 31) - 1, 1, -1, 1 << 30, -(1 << 30), 3 << 28, -(3 << 28), 77, -77, 5, 0],
                    np.int32)
    _, af = qm.act(name, (1, 4), a_scale, 3)
    inputs = [af, qm.const_dq(f"{name}_w", w, w_scale, np.zeros(12, np.int8), axis=0),
              qm.const_dq(f"{name}_b", bias, (np.float32(a_scale) * w_scale).astype(np.float32),
                          np.zeros(12, np.int32), axis=0)]
    qm.node("Gemm", inputs, [f"{name}_mm"], transB=1)
    return qm.out(f"{name}_mm", f"{name}_y", (1, 12), y_scale, -5)


def _path_model() -> tuple[QModel, str]:
    """The path cases and the requantization edge layer side by side in one int8-I/O model."""
    qm, _ = _model("q", PATH_CASES)
    return qm, _edge_layer(qm, "edge")


@pytest.mark.parametrize("requant", ["fixed", "float"])
def test_requant_edges_equal_reference(requant, tmp_path):
    """The edge layer (int32 extremes, shifts at both ends, a zero multiplier) and every path case equal the
    integer reference on the host (onnxruntime is not asked: its float QGemm cannot hold the extremes)."""
    qm, edge = _path_model()
    skip = [edge] + [f"f{i}_y_q" for i in range(len(PATH_CASES))]
    ops = check_qmodel(qm, tmp_path, seeds=range(3), ort_skip=skip, requant=requant)
    assert ops["edge_mm_node"] == "fc_s8"


@pytest.mark.parametrize("requant", ["fixed", "float"])
@pytest.mark.parametrize("board", CORE_BOARDS)
def test_paths_on_target_equal_host(board, requant, tmp_path):
    """On each QEMU core the firmware's outputs (SXTB16/SMLAD blocks on M4/M7/M33/M55, the portable loops and the
    32-bit-only fixed requantization on M0+) equal the host build's (portable C, 64-bit requantization) bit for bit."""
    qm, _ = _path_model()
    mcucomp.compile_model(qm.model(), tmp_path, name="m", board=board, requant=requant)
    result = verify_on_target(tmp_path, board, inputs=4, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and all(v == 0 for v in result.mismatching.values()), result.mismatching


def test_weight_zero_points_not_128(tmp_path):
    """uint8 QLinearMatMul weights whose zero points are not 128 (per column and per tensor) keep nonzero int8
    weight zero points: the row-sum correction of mcu_fc_s8; bit-exact with onnxruntime's integer kernel."""
    rng = np.random.default_rng(24)
    qm = QModel(np.uint8)
    for i, ((a_shape, n), per_column) in enumerate(zip([((3, 13), 10), ((2, 40), 9)], (True, False))):
        k = a_shape[-1]
        a_zp, y_zp = int(rng.integers(100, 150)), int(rng.integers(100, 150))
        w_zp = rng.integers(90, 170, n if per_column else 1)
        w = rng.integers(0, 256, (k, n))
        w_scale = rng.uniform(0.002, 0.02, n if per_column else 1).astype(np.float32)
        acc = (rng.integers(0, 256, a_shape) - a_zp) @ (w - w_zp)
        y_scale = pick_scale(acc * (np.float32(0.03) * w_scale), rng)
        a = qm.raw_input(f"z{i}_a", a_shape, np.uint8)
        inputs = [a, qm.init(f"z{i}_as", np.float32(0.03)), qm.init(f"z{i}_az", np.uint8(a_zp)),
                  qm.init(f"z{i}_w", w.astype(np.uint8)), qm.init(f"z{i}_ws", w_scale if per_column else w_scale[0]),
                  qm.init(f"z{i}_wz", w_zp.astype(np.uint8) if per_column else np.uint8(w_zp[0])),
                  qm.init(f"z{i}_ys", np.float32(y_scale)), qm.init(f"z{i}_yz", np.uint8(y_zp))]
        qm.node("QLinearMatMul", inputs, [f"z{i}_y"])
        qm.raw_output(f"z{i}_y", acc.shape, np.uint8)
    ops = check_qmodel(qm, tmp_path, seeds=range(4), ort_lsb=0)
    assert [ops[f"z{i}_y_node"] for i in range(2)] == ["fc_s8"] * 2
