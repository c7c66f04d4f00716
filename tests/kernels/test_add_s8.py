"""add_s8 bit-exact against onnxruntime: QDQ Add with broadcasting (per-channel bias-like [1,C,1,1], scalar, row,
rank mismatch, 1x1 images), with and without Relu, in each of onnxruntime's arithmetics: QLinearAdd in int8, in
uint8 after its s8→u8 retyping (both inputs activations, or a constant it retypes), and float when the types
differ or the Relu is kept."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import channels_last, layer_layouts
from qmodels import QModel, check_qmodel

# (a shape, b shape, b kind, activation, ties); b kind: "act" (a second input), "big"/"small" (constant, values beyond
# or within [-64, 64], which decides whether onnxruntime retypes it); ties: b_scale = a_scale = y_scale / 2, so half
# of the exact sums lie half-way between two codes, where the arithmetics differ
CASES = [
    ((1, 5, 7, 9), (1, 5, 1, 1), "act", None, True),
    ((2, 3, 4, 5), (3, 1, 5), "act", "relu", False),
    ((1, 7), (1,), "act", None, False),
    ((4, 6), (6,), "act", "relu_kept", True),
    ((1, 3, 1, 1), (1, 3, 1, 1), "act", None, False),
    ((2, 5, 6, 7), (1, 5, 1, 1), "big", None, True),
    ((2, 5, 6, 7), (1, 5, 1, 1), "small", None, True),
    ((3, 4), (), "big", "relu", False),
]


def _add_case(qm: QModel, name: str, case, rng, a_boundary: str, b_boundary: str) -> None:
    """DQ(a), DQ(b) → Add → [Relu] → Q."""
    a_shape, b_shape, b_kind, act, ties = case
    off = qm.zp_offset
    a_scale, b_scale = float(rng.uniform(0.01, 0.05)), float(rng.uniform(0.01, 0.05))
    b_scale = a_scale if ties else b_scale
    _, af = qm.act(f"{name}a", a_shape, a_scale, int(rng.integers(-40, 40)) + off, a_boundary)
    b_zp = int(rng.integers(-20, 20)) + off
    if b_kind == "act":
        _, bf = qm.act(f"{name}b", b_shape, b_scale, b_zp, b_boundary)
    else:
        lim = 127 if b_kind == "big" else 50
        bf = qm.const_dq(f"{name}b", (rng.integers(-lim, lim + 1, b_shape) + off).astype(qm.act_dtype),
                         np.float32(b_scale), qm.act_dtype.type(b_zp))
    y_scale = float(np.float32(a_scale) * 2) if ties else float(np.float32((a_scale + b_scale) * rng.uniform(0.6, 1.1)))
    y_zp = (-128 if act == "relu" else int(rng.integers(-30, 30))) + off
    qm.node("Add", [af, bf], [f"{name}_add"])
    y = f"{name}_add"
    if act:
        qm.node("Relu", [y], [f"{name}_relu"])
        y = f"{name}_relu"
    qm.out(y, f"{name}_y", np.broadcast_shapes(a_shape, b_shape), y_scale, y_zp, a_boundary)


@pytest.mark.parametrize("boundaries,dtype", [("qq", np.int8), ("ff", np.int8), ("fq", np.int8), ("qq", np.uint8)])
def test_qdq_add(boundaries, dtype, tmp_path):
    """qq: int8 QLinearAdd; ff: uint8 QLinearAdd (retyped); fq: float Add (input types differ); uint8 graph I/O:
    uint8 QLinearAdd."""
    rng = np.random.default_rng(30)
    qm = QModel(dtype)
    for i, case in enumerate(CASES):
        _add_case(qm, f"s{i}", case, rng, boundaries[0], boundaries[1])
    ops = check_qmodel(qm, tmp_path, seeds=range(5))
    assert [ops[f"s{i}_add_node"] for i in range(len(CASES))] == ["add_s8"] * len(CASES)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_qlinearadd(dtype, tmp_path):
    """com.microsoft QLinearAdd (QOperator format) on 8-bit graph I/O, with the broadcasting cases."""
    rng = np.random.default_rng(31)
    qm = QModel(dtype)
    t = qm.act_dtype.type
    off = qm.zp_offset
    for i, (a_shape, b_shape, _, _, ties) in enumerate(CASES[:5]):
        a_s = float(rng.uniform(0.01, 0.05))
        b_s = a_s if ties else float(rng.uniform(0.01, 0.05))
        y_s = float(np.float32(a_s) * 2) if ties else float(np.float32((a_s + b_s) * rng.uniform(0.6, 1.1)))
        a = qm.raw_input(f"s{i}a", a_shape, dtype)
        b = qm.raw_input(f"s{i}b", b_shape, dtype)
        inputs = [a, qm.init(f"s{i}as", np.float32(a_s)), qm.init(f"s{i}az", t(int(rng.integers(-40, 40)) + off)),
                  b, qm.init(f"s{i}bs", np.float32(b_s)), qm.init(f"s{i}bz", t(int(rng.integers(-20, 20)) + off)),
                  qm.init(f"s{i}ys", np.float32(y_s)), qm.init(f"s{i}yz", t(int(rng.integers(-30, 30)) + off))]
        qm.node("QLinearAdd", inputs, [f"s{i}_y"], domain="com.microsoft")
        qm.raw_output(f"s{i}_y", np.broadcast_shapes(a_shape, b_shape), dtype)
    ops = check_qmodel(qm, tmp_path, seeds=range(5))
    assert [ops[f"s{i}_y_node"] for i in range(5)] == ["add_s8"] * 5


@pytest.mark.parametrize("qoperator", [False, True])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_fixed_mode_equals_litert(dtype, qoperator, tmp_path):
    """--requant fixed: every pair of codes equals TFLite's int8 ADD (LiteRT's builtin kernel), QDQ Add and
    QLinearAdd alike; one case with equal input scales, one output scale that saturates, and input scale ratios from
    1 to 2^-24 (the C's 32-bit operand rescale takes a different branch for ratios below 2^-4)."""
    from tflite_tiny import check_binary_fixed_against_litert

    params = [((0.031, -7), (0.012, 20), (0.04, 3)), ((0.02, 0), (0.02, -50), (0.04, -128)),
              ((0.11, 60), (0.0033, -1), (0.05, 9)), ((0.3, 5), (0.3 / 5000, -9), (0.2, 0)),
              ((1e-7, 100), (1.7, -3), (1.5, -20))]
    check_binary_fixed_against_litert("Add", "ADD", dtype, qoperator, params, tmp_path)


@pytest.mark.parametrize("boundaries", ["qq", "fq"])
def test_qdq_add_channels_last(boundaries, tmp_path, monkeypatch):
    """The image cases run channels-last (the broadcast walks the stored N, H, W, C shapes), bit-exact as above."""
    channels_last(monkeypatch, "add_s8")
    rng = np.random.default_rng(32)
    qm = QModel(np.int8)
    images = [case for case in CASES if len(case[0]) == 4 and len(case[1]) == 4 and case[2] == "act"]
    for i, case in enumerate(images):
        _add_case(qm, f"s{i}", case, rng, boundaries[0], boundaries[1])
    check_qmodel(qm, tmp_path, seeds=range(3))
    assert layer_layouts(tmp_path)["add_s8"] == {"nhwc"}


@pytest.mark.parametrize("requant", ["float", "fixed"])
def test_linear_form_and_exact_fallback(requant, tmp_path):
    """The C's linear integer form (taken where the compiler proved it for all 65,536 code pairs, the elements near a
    rounding tie in the mode's own arithmetic) and the exact loop alone (an output scale 1/200 of the inputs' leaves
    no form: |x| would pass 2^31), equal shapes and broadcast rows, bit-exact with the integer reference; the exact
    form is found for the ordinary scales, the one with a tie test for float ties, none for the tiny output scale."""
    from mcucomp.ops.add_s8 import linear_form
    from mcucomp.pipeline import lower_model

    qm = _form_model()
    check_qmodel(qm, tmp_path, seeds=range(3), requant=requant)
    lowered = lower_model(qm.model(), requant=requant)
    forms = {n.name: linear_form(n, lowered.graph) for n in lowered.order if n.op == "add_s8"}
    kinds = [forms[f"s{i}_add_node"].kind if forms[f"s{i}_add_node"] else None for i in range(4)]
    # exact ties in float arithmetic round half to even, which no floor of a linear form gives: the tie test
    assert kinds == (["exact", "ties", "exact", None] if requant == "float" else ["exact", "exact", "exact", None])


@pytest.mark.parametrize("requant", ["float", "fixed"])
@pytest.mark.parametrize("board", ["nucleo-l4r5zi", "disco-f746ng", "nucleo-u575zi", "corstone-300", "nucleo-g0b1re"])
def test_linear_form_on_target_equal_host(board, requant, tmp_path):
    """On each QEMU core (SSAT and MLA on Armv7-M and later, the ARMv6-M loops and 32-bit fixed arithmetic on the
    M0+) the linear form, its tie elements and the exact loop equal the host build bit for bit."""
    import mcucomp
    from mcucomp.target.verify import verify_on_target

    mcucomp.compile_model(_form_model().model(), tmp_path, name="m", board=board, requant=requant)
    result = verify_on_target(tmp_path, board, inputs=4, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and all(v == 0 for v in result.mismatching.values()), result.mismatching


def _form_model() -> QModel:
    """Equal shapes, equal scales (ties), a broadcast row, and an output scale too small for the linear form."""
    qm = QModel(np.int8)
    cases = [((1, 4, 9, 9), (1, 4, 9, 9), 0.02, 0.03, 0.045), ((1, 4, 9, 9), (1, 4, 9, 9), 0.02, 0.02, 0.04),
             ((3, 40), (40,), 0.05, 0.01, 0.05), ((2, 33), (2, 33), 0.5, 0.4, 0.0025)]
    for i, (a_shape, b_shape, a_s, b_s, y_s) in enumerate(cases):
        _, af = qm.act(f"s{i}a", a_shape, a_s, 3 - i, "q")
        _, bf = qm.act(f"s{i}b", b_shape, b_s, -5 + i, "q")
        qm.node("Add", [af, bf], [f"s{i}_add"])
        qm.out(f"s{i}_add", f"s{i}_y", np.broadcast_shapes(a_shape, b_shape), y_s, 7 * i - 10, "q")
    return qm
