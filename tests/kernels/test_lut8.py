"""lut8 bit-exact against onnxruntime for all 256 input codes: com.microsoft QLinearSigmoid (MLAS logistic) and
QLinearLeakyRelu tables in int8 and uint8, and QLinearConcat's requantizing (identity) tables next to a copied
input. The table is built at compile time (mcucomp/ops/_lut.py), so running every code through the C compares the
whole table with onnxruntime's."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

import mcucomp
import mcucomp.host
from helpers import assert_close
from qmodels import QModel

# (x_scale, x_zp (int8-centred), y_scale, y_zp (int8-centred), leaky relu alpha)
PARAMS = [(0.05, 0, 1 / 256, -128, 0.01), (0.11, -37, 0.0041, -100, 0.2), (0.013, 60, 0.0078125, 3, 0.5),
          (0.4, 11, 1 / 255, -128, 0.03)]


def _every_code(qm: QModel) -> np.ndarray:
    """All 256 codes of the model's 8-bit type, as one input row."""
    lo = -128 if qm.act_dtype == np.int8 else 0
    return np.arange(lo, lo + 256).astype(qm.act_dtype).reshape(1, 256)


def _run_both(qm: QModel, tmp_path, feeds: dict[str, np.ndarray]) -> dict[str, str]:
    """Compile, run `feeds` through the C and onnxruntime, compare every output exactly; return ops by node."""
    model = qm.model()
    result = mcucomp.compile_model(model, tmp_path, name="m")
    ours = mcucomp.host.load(result.out_dir, layer_hook=False).run(feeds)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    for name, value in zip(names, sess.run(names, feeds)):
        assert_close(ours[name], value, name, exact=True)
    return {layer["name"]: layer["op"] for layer in result.report["layers"]}


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_sigmoid_and_leaky_relu_tables(dtype, tmp_path):
    qm = QModel(dtype)
    t, off = qm.act_dtype.type, qm.zp_offset
    feeds = {}
    for i, (x_s, x_z, y_s, y_z, alpha) in enumerate(PARAMS):
        for op, extra in (("QLinearSigmoid", {}), ("QLinearLeakyRelu", {"alpha": alpha})):
            x = qm.raw_input(f"{op}{i}_x", (1, 256), dtype)
            feeds[x] = _every_code(qm)
            y_scale = y_s if op == "QLinearSigmoid" else x_s * 0.7
            inputs = [x, qm.init(f"{op}{i}_xs", np.float32(x_s)), qm.init(f"{op}{i}_xz", t(x_z + off)),
                      qm.init(f"{op}{i}_ys", np.float32(y_scale)), qm.init(f"{op}{i}_yz", t(y_z + off))]
            qm.node(op, inputs, [f"{op}{i}_y"], domain="com.microsoft", **extra)
            qm.raw_output(f"{op}{i}_y", (1, 256), dtype)
    ops = _run_both(qm, tmp_path, feeds)
    assert set(ops.values()) - {"recode8"} == {"lut8"}


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_concat_requantizes_inputs_with_other_parameters(dtype, tmp_path):
    """QLinearConcat of three inputs: two through identity tables, one with the output's parameters copied."""
    qm = QModel(dtype)
    t, off = qm.act_dtype.type, qm.zp_offset
    inputs = [qm.init("ys", np.float32(0.03)), qm.init("yz", t(-5 + off))]
    feeds = {}
    for name, scale, zp in (("a", 0.05, 17), ("b", 0.03, -5), ("c", 0.0123, -90)):
        x = qm.raw_input(name, (1, 256), dtype)
        feeds[x] = _every_code(qm)
        inputs += [x, qm.init(f"{name}s", np.float32(scale)), qm.init(f"{name}z", t(zp + off))]
    qm.node("QLinearConcat", inputs, ["y"], domain="com.microsoft", axis=0)
    qm.raw_output("y", (3, 256), dtype)
    ops = _run_both(qm, tmp_path, feeds)
    assert sorted(op for op in ops.values() if op != "recode8") == ["concat", "lut8", "lut8"]
