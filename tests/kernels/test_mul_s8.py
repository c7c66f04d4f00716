"""mul_s8 bit-exact against onnxruntime's com.microsoft QLinearMul (QOperator format), int8 and uint8, with
broadcasting (per-channel [1,C,1,1], scalar, rank mismatch, both sides broadcast, a constant operand), with output
scales that saturate some products and ones that put many exact results half-way between two codes."""

from __future__ import annotations

import numpy as np
import pytest

from qmodels import QModel, check_qmodel

# (a shape, b shape, b constant, ratio): "tie" makes the float32 ratio a_scale·b_scale/y_scale exactly 1/2, so every
# odd product of the zero-point-free codes lies half-way between two codes; "near" makes it the float32 just below
# 1/2, so small odd products land a hair below half-way, where adding the zero point in uint8 (onnxruntime) or in
# int8 rounds differently; None: a random ratio that saturates some products
CASES = [
    ((1, 5, 7, 9), (1, 5, 1, 1), False, None),
    ((2, 3, 4, 5), (3, 1, 5), False, "tie"),
    ((1, 7), (1,), False, None),
    ((1, 3, 1, 4), (1, 1, 5, 1), False, "near"),
    ((2, 6, 3, 3), (1, 6, 1, 1), True, None),
    ((16, 17), (16, 17), False, "tie"),
    ((12, 19), (12, 19), False, "near"),
]


def _y_scale(a_s: float, b_s: float, ratio: str | None, rng: np.random.Generator) -> float:
    """The output scale giving the case's ratio (see CASES)."""
    ab = np.float32(a_s) * np.float32(b_s)
    if ratio is None:
        return float(np.float32(ab * 4000 * rng.uniform(0.1, 1.0)))
    y = np.float32(ab * np.float32(2))
    while ratio == "near" and ab / y >= np.float32(0.5):
        y = np.nextafter(y, np.float32(np.inf))
    assert (ab / y == np.float32(0.5)) == (ratio == "tie")
    return float(y)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_qlinearmul(dtype, tmp_path):
    rng = np.random.default_rng(41)
    qm = QModel(dtype)
    t = qm.act_dtype.type
    off = qm.zp_offset
    for i, (a_shape, b_shape, b_const, ratio) in enumerate(CASES):
        a_s, b_s = float(np.float32(rng.uniform(0.01, 0.05))), float(np.float32(rng.uniform(0.01, 0.05)))
        y_s = _y_scale(a_s, b_s, ratio, rng)
        a = qm.raw_input(f"s{i}a", a_shape, dtype)
        b = qm.init(f"s{i}b", (rng.integers(-128, 128, b_shape) + off).astype(dtype)) if b_const else \
            qm.raw_input(f"s{i}b", b_shape, dtype)
        inputs = [a, qm.init(f"s{i}as", np.float32(a_s)), qm.init(f"s{i}az", t(int(rng.integers(-40, 40)) + off)),
                  b, qm.init(f"s{i}bs", np.float32(b_s)), qm.init(f"s{i}bz", t(int(rng.integers(-20, 20)) + off)),
                  qm.init(f"s{i}ys", np.float32(y_s)), qm.init(f"s{i}yz", t(int(rng.integers(-30, 30)) + off))]
        qm.node("QLinearMul", inputs, [f"s{i}_y"], domain="com.microsoft")
        qm.raw_output(f"s{i}_y", np.broadcast_shapes(a_shape, b_shape), dtype)
    ops = check_qmodel(qm, tmp_path, seeds=range(5))
    assert [ops[f"s{i}_y_node"] for i in range(len(CASES))] == ["mul_s8"] * len(CASES)


@pytest.mark.parametrize("qoperator", [False, True])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_fixed_mode_equals_litert(dtype, qoperator, tmp_path):
    """--requant fixed: every pair of codes equals TFLite's int8 MUL (LiteRT's builtin kernel), QDQ Mul and
    QLinearMul alike; output scales that saturate many products and one that saturates none."""
    from tflite_tiny import check_binary_fixed_against_litert

    params = [((0.031, -7), (0.012, 20), (0.004, 3)), ((0.02, 0), (0.02, -50), (0.4, -128)),
              ((0.11, 60), (0.0033, -1), (0.01, 9))]
    check_binary_fixed_against_litert("Mul", "MUL", dtype, qoperator, params, tmp_path)
