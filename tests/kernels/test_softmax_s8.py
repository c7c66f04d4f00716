"""softmax_s8 bit-exact against onnxruntime: QDQ Softmax on the last axis with odd lengths (1, 3, 7, 10, 33, 129),
on a middle axis, in rank 2 to 4; fused into QLinearSoftmax (int8 or uint8 in onnxruntime, including its
saturation and overflow behaviour) or run as DQ, float Softmax, Q when the types differ."""

from __future__ import annotations

import numpy as np
import pytest

import mcucomp
from mcucomp.pipeline import lower_model
from mcucomp.target.verify import verify_on_target
from qmodels import QModel, check_qmodel
from target_boards import CORE_BOARDS

# On CORE_BOARDS: VCVTR rounding on the FPU cores (M4, M7, M33, M55), integer rounding on the M0+.

# (input shape, axis, output scale, output zero point): 1/256 with zp -128 is what quantize_static picks for [0, 1]
CASES = [
    ((1, 1), -1, 1 / 256, -128),
    ((2, 3), -1, 1 / 256, -128),
    ((1, 7), -1, 1 / 200, -100),
    ((3, 10), 1, 1 / 256, -128),
    ((2, 3, 33), -1, 1 / 256, -128),
    ((1, 129), -1, 1 / 256, -128),
    ((2, 5, 3, 4), 1, 1 / 128, 0),
]


@pytest.mark.parametrize("boundaries,dtype", [("qq", np.int8), ("ff", np.int8), ("fq", np.int8), ("qq", np.uint8)])
def test_qdq_softmax(boundaries, dtype, tmp_path):
    """qq: int8 QLinearSoftmax; ff: float I/O, which onnxruntime retypes to uint8 and fuses into its uint8
    QLinearSoftmax; fq: float softmax (types differ); uint8 graph I/O: uint8 QLinearSoftmax. mcucomp gives every
    int8 group the int8 table's semantics; onnxruntime's retyped uint8 kernel is far from the true softmax (a
    one-element row gives its zero point, 0.0, instead of 1.0; up to 7 LSB elsewhere), so ff is compared with the
    integer reference only."""
    rng = np.random.default_rng(50)
    qm = QModel(dtype)
    off = qm.zp_offset
    for i, (shape, axis, y_scale, y_zp) in enumerate(CASES):
        _, xf = qm.act(f"s{i}", shape, float(rng.uniform(0.02, 0.15)), int(rng.integers(-40, 40)) + off,
                       boundaries[0])
        qm.node("Softmax", [xf], [f"s{i}_sm"], axis=axis)
        qm.out(f"s{i}_sm", f"s{i}_y", shape, y_scale, y_zp + off, boundaries[1])
    skip = [f"s{i}_y" for i in range(len(CASES))] if boundaries == "ff" else []
    ops = check_qmodel(qm, tmp_path, seeds=range(5), ort_skip=skip)
    assert [ops[f"s{i}_sm_node"] for i in range(len(CASES))] == ["softmax_s8"] * len(CASES)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_qlinearsoftmax(dtype, tmp_path):
    """com.microsoft QLinearSoftmax (QOperator format, opset 13 semantics) on 8-bit graph I/O."""
    rng = np.random.default_rng(51)
    qm = QModel(dtype)
    t = qm.act_dtype.type
    off = qm.zp_offset
    for i, (shape, axis, y_scale, y_zp) in enumerate(CASES):
        x = qm.raw_input(f"s{i}_x", shape, dtype)
        inputs = [x, qm.init(f"s{i}_xs", np.float32(rng.uniform(0.02, 0.15))),
                  qm.init(f"s{i}_xz", t(int(rng.integers(-40, 40)) + off)), qm.init(f"s{i}_ys", np.float32(y_scale)),
                  qm.init(f"s{i}_yz", t(y_zp + off))]
        qm.node("QLinearSoftmax", inputs, [f"s{i}_y"], domain="com.microsoft", axis=axis, opset=13)
        qm.raw_output(f"s{i}_y", shape, dtype)
    ops = check_qmodel(qm, tmp_path, seeds=range(5))
    assert [ops[f"s{i}_y_node"] for i in range(len(CASES))] == ["softmax_s8"] * len(CASES)


@pytest.mark.parametrize("board", CORE_BOARDS)
def test_on_target_equals_host(board, tmp_path):
    """Both modes (an int8 output: the table; a uint8 output: float softmax then QuantizeLinear) on each QEMU core
    equal the host build (the integer rounding of mcu_round_even_sat) bit for bit."""
    rng = np.random.default_rng(52)
    qm = QModel(np.int8)
    for i, (shape, axis, y_scale, y_zp) in enumerate(CASES):
        for out_dtype, zp_offset in ((np.int8, 0), (np.uint8, 128)):
            name = f"s{i}{zp_offset}"
            _, xf = qm.act(name, shape, float(rng.uniform(0.02, 0.15)), int(rng.integers(-40, 40)))
            qm.node("Softmax", [xf], [f"{name}_sm"], axis=axis)
            qm.out(f"{name}_sm", f"{name}_y", shape, y_scale, y_zp + zp_offset, dtype=out_dtype)
    model = qm.model()
    modes = [n.attrs["mode"] for n in lower_model(model).order if n.op == "softmax_s8"]
    assert sorted(set(modes)) == ["float", "qlinear"] and len(modes) == 2 * len(CASES), modes
    mcucomp.compile_model(model, tmp_path, name="m", board=board)
    result = verify_on_target(tmp_path, board, inputs=4, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and all(v == 0 for v in result.mismatching.values()), result.mismatching
