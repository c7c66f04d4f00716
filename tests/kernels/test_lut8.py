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


# ONNX activation, its TFLite int8 op, output (scale, int8 zero point) TFLite requires or a free choice, extra attrs
TFLITE_CASES = [("Sigmoid", "LOGISTIC", (1 / 256, -128), {}), ("Tanh", "TANH", (1 / 128, 0), {}),
                ("HardSwish", "HARD_SWISH", (0.031, -90), {}), ("LeakyRelu", "LEAKY_RELU", (0.02, 17), {"alpha": 0.15}),
                ("Relu", "RELU", (0.027, -128), {}), ("Clip", "RELU6", (6 / 255, -128), {})]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_fixed_mode_tables_equal_litert(dtype, tmp_path):
    """--requant fixed: DQ → activation → Q runs TFLite's int8 kernel arithmetic: every code equals LiteRT's builtin
    kernel (a one-op .tflite) and the integer reference, for two input quantizations per op."""
    from mcucomp.intref import run_lowered
    from mcucomp.pipeline import lower_model
    from tflite_tiny import elementwise_model, run_litert

    qm = QModel(dtype)
    off = qm.zp_offset
    feeds, expected = {}, {}
    for i, (x_s, x_z) in enumerate(((0.047, 3), (0.0173, -41))):
        for op, tfl_op, (y_s, y_z), attrs in TFLITE_CASES:
            name = f"{op}{i}"
            x, xf = qm.act(f"{name}x", (1, 256), x_s, x_z + off)
            feeds[x] = _every_code(qm)
            inputs = [xf] + ([qm.init(f"{name}lo", np.float32(0)), qm.init(f"{name}hi", np.float32(6))]
                             if op == "Clip" else [])
            qm.node(op, inputs, [f"{name}_f"], **attrs)
            y = qm.out(f"{name}_f", name, (1, 256), y_s, y_z + off)
            tfl = elementwise_model(tfl_op, 256, [(x_s, x_z)], (y_s, y_z), alpha=attrs.get("alpha"))
            expected[y] = (run_litert(tfl, np.arange(-128, 128)).astype(np.int32) + off).astype(dtype).reshape(1, 256)
    model = qm.model(opset=14)  # HardSwish
    result = mcucomp.compile_model(model, tmp_path, name="m", requant="fixed")
    ours = mcucomp.host.load(result.out_dir, layer_hook=False).run(feeds)
    reference = run_lowered(lower_model(model, requant="fixed"), feeds)
    for name, value in expected.items():
        assert_close(ours[name], value, f"{name} against LiteRT", exact=True)
        assert_close(reference[name], value, f"{name} integer reference against LiteRT", exact=True)
    assert {layer["op"] for layer in result.report["layers"]} - {"recode8"} == {"lut8"}


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_fixed_mode_qoperator_tables_equal_litert(dtype, tmp_path):
    """--requant fixed: com.microsoft QLinearSigmoid and QLinearLeakyRelu run TFLite's LOGISTIC and LEAKY_RELU
    arithmetic too, every code equal to LiteRT's builtin kernel (uint8 through TFLite's int8 model, codes 128 lower)."""
    from tflite_tiny import elementwise_model, run_litert

    qm = QModel(dtype)
    t, off = qm.act_dtype.type, qm.zp_offset
    feeds, expected = {}, {}
    for op, tfl_op, (x_s, x_z), (y_s, y_z), extra in (
            ("QLinearSigmoid", "LOGISTIC", (0.061, -9), (1 / 256, -128), {}),
            ("QLinearLeakyRelu", "LEAKY_RELU", (0.03, 14), (0.021, -20), {"alpha": 0.1})):
        x = qm.raw_input(f"{op}_x", (1, 256), dtype)
        feeds[x] = _every_code(qm)
        inputs = [x, qm.init(f"{op}_xs", np.float32(x_s)), qm.init(f"{op}_xz", t(x_z + off)),
                  qm.init(f"{op}_ys", np.float32(y_s)), qm.init(f"{op}_yz", t(y_z + off))]
        qm.node(op, inputs, [f"{op}_y"], domain="com.microsoft", **extra)
        qm.raw_output(f"{op}_y", (1, 256), dtype)
        tfl = elementwise_model(tfl_op, 256, [(x_s, x_z)], (y_s, y_z), alpha=extra.get("alpha"))
        expected[f"{op}_y"] = (run_litert(tfl, np.arange(-128, 128)).astype(np.int32) + off).astype(dtype)[None]
    result = mcucomp.compile_model(qm.model(), tmp_path, name="m", requant="fixed")
    ours = mcucomp.host.load(result.out_dir, layer_hook=False).run(feeds)
    for name, value in expected.items():
        assert_close(ours[name], value, f"{name} against LiteRT", exact=True)
