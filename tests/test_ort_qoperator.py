"""onnxruntime's quantize_static(QOperator) output for small float CNNs compiles, and the host C is bit-exact with
onnxruntime: residual QLinearAdd, QLinearConcat of branches (requantized and copied inputs), QLinearMul by a
constant and of two activations, QLinearAveragePool, QLinearGlobalAveragePool, QLinearSigmoid, QLinearLeakyRelu,
QLinearSoftmax, QLinearWhere and QGemm with and without bias; uint8 and int8 activations, per-tensor and
per-channel weights. Every model has several outputs, so each op's result reaches a compared output."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from cli_models import run_cli, save
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

import mcucomp
from mcucomp.errors import UnsupportedError
from mcucomp.frontend import load_onnx
from mcucomp.target.verify import verify_on_target
from mcucomp.pipeline import verify_model

SHAPE = [1, 3, 8, 8]
CONFIGS = [(act, per_channel) for act in ("u8", "s8") for per_channel in (False, True)]
#: Every com.microsoft op the models must make quantize_static write (the test fails if the quantizer stops).
EXPECTED_OPS = {"QLinearAdd", "QLinearMul", "QLinearConcat", "QLinearAveragePool", "QLinearGlobalAveragePool",
                "QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax", "QLinearWhere", "QGemm"}


class _Weights:
    """Seeded float32 initializers."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.inits: list[onnx.TensorProto] = []

    def __call__(self, name: str, dims, scale: float = 0.4) -> str:
        self.inits.append(numpy_helper.from_array((self.rng.standard_normal(dims) * scale).astype(np.float32), name))
        return name


def _model(nodes, outputs: dict[str, list[int]], w: _Weights, extra_inputs=()) -> onnx.ModelProto:
    """A float model on input x[1,3,8,8] (opset 13)."""
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)] + list(extra_inputs)
    graph = helper.make_graph(nodes, "g", inputs,
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, d) for n, d in outputs.items()],
                              w.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def residual_model() -> onnx.ModelProto:
    """Conv → Relu → Conv + skip (QLinearAdd) → AveragePool 3x3/2 pad 1 (count_include_pad) → GlobalAveragePool →
    Flatten → Gemm with bias and alpha 0.7 → Softmax; a second head: AveragePool 2x2/2 → Sigmoid."""
    w = _Weights(1)
    n = helper.make_node
    nodes = [n("Conv", ["x", w("w1", (6, 3, 3, 3)), w("b1", (6,), 0.1)], ["c1"], pads=[1, 1, 1, 1]),
             n("Relu", ["c1"], ["r1"]),
             n("Conv", ["r1", w("w2", (6, 6, 3, 3), 0.3), w("b2", (6,), 0.1)], ["c2"], pads=[1, 1, 1, 1]),
             n("Add", ["c2", "r1"], ["res"]),
             n("AveragePool", ["res"], ["ap"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
               count_include_pad=1),
             n("GlobalAveragePool", ["ap"], ["gap"]),
             n("Flatten", ["gap"], ["flat"]),
             n("Gemm", ["flat", w("fc_w", (6, 5)), w("fc_b", (5,), 0.2)], ["logits"], alpha=0.7),
             n("Softmax", ["logits"], ["probs"], axis=-1),
             n("AveragePool", ["res"], ["ap2"], kernel_shape=[2, 2], strides=[2, 2]),
             n("Sigmoid", ["ap2"], ["sig"])]
    return _model(nodes, {"probs": [1, 5], "logits": [1, 5], "sig": [1, 6, 4, 4]}, w)


def branches_model() -> onnx.ModelProto:
    """Conv, then two branches (Conv → Sigmoid, Conv → LeakyRelu) concatenated (QLinearConcat) with the trunk,
    Mul by a per-channel constant, Mul of two activations with broadcasting, AveragePool 3x3/1 pad 1 (pads not
    counted), Where on a bool input, GlobalAveragePool → Flatten → Gemm (transB, no bias)."""
    w = _Weights(2)
    n = helper.make_node
    nodes = [n("Conv", ["x", w("w1", (4, 3, 3, 3)), w("b1", (4,), 0.1)], ["trunk"], pads=[1, 1, 1, 1]),
             n("Conv", ["trunk", w("wa", (4, 4, 1, 1))], ["ca"]),
             n("Sigmoid", ["ca"], ["sa"]),
             n("Conv", ["trunk", w("wb", (4, 4, 3, 3), 0.3), w("bb", (4,), 0.1)], ["cb"], pads=[1, 1, 1, 1]),
             n("LeakyRelu", ["cb"], ["lb"], alpha=0.15),
             n("Concat", ["trunk", "sa", "lb"], ["cat"], axis=1),
             n("Mul", ["cat", w("gain", (1, 12, 1, 1), 1.0)], ["scaled"]),
             n("GlobalAveragePool", ["scaled"], ["pooled"]),
             n("Mul", ["scaled", "pooled"], ["gated"]),
             n("AveragePool", ["gated"], ["smooth"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             n("Where", ["mask", "smooth", "scaled"], ["picked"]),
             n("GlobalAveragePool", ["picked"], ["gap"]),
             n("Flatten", ["gap"], ["flat"]),
             n("Gemm", ["flat", w("fc_w", (3, 12))], ["logits"], transB=1)]
    mask = helper.make_tensor_value_info("mask", TensorProto.BOOL, [1, 12, 8, 8])
    return _model(nodes, {"logits": [1, 3], "picked": [1, 12, 8, 8], "gated": [1, 12, 8, 8]}, w, [mask])


MODELS = {"residual": residual_model, "branches": branches_model}
#: The kernels each model must lower to (besides the convolutions and the graph's Q/DQ).
KERNELS = {"residual": {"add_s8", "avgpool_s8", "fc_s8", "softmax_s8", "lut8"},
           "branches": {"lut8", "concat", "mul_s8", "avgpool_s8", "where", "fc_s8"}}


class _Reader(CalibrationDataReader):
    """8 seeded random calibration inputs."""

    def __init__(self, model: onnx.ModelProto):
        rng = np.random.default_rng(0)
        specs = [(i.name, i.type.tensor_type.elem_type) for i in model.graph.input]
        self.feeds = iter([{name: rng.standard_normal(SHAPE).astype(np.float32) if t == TensorProto.FLOAT
                            else rng.random((1, 12, 8, 8)) < 0.5 for name, t in specs} for _ in range(8)])

    def get_next(self):
        return next(self.feeds, None)


@pytest.fixture(scope="session")
def quantized(tmp_path_factory):
    """Quantize each model in each configuration once per session: {(model, act, per_channel): path}."""
    root = tmp_path_factory.mktemp("qop")
    cache = {}

    def get(model: str, act: str, per_channel: bool):
        key = (model, act, per_channel)
        if key not in cache:
            float_model = MODELS[model]()
            src = save(float_model, root / f"{model}.onnx")
            dst = root / f"{model}_{act}_{'pc' if per_channel else 'pt'}.onnx"
            quantize_static(str(src), str(dst), _Reader(float_model), quant_format=QuantFormat.QOperator,
                            activation_type=QuantType.QUInt8 if act == "u8" else QuantType.QInt8,
                            weight_type=QuantType.QInt8, per_channel=per_channel,
                            extra_options={"ForceQuantizeNoInputCheck": True})
            cache[key] = dst
        return cache[key]

    return get


def test_the_quantizer_writes_every_contrib_op(quantized):
    ops = {n.op_type for model in MODELS for n in onnx.load(quantized(model, "u8", False)).graph.node
           if n.domain == "com.microsoft"}
    assert EXPECTED_OPS <= ops, EXPECTED_OPS - ops


@pytest.mark.parametrize("act,per_channel", CONFIGS)
@pytest.mark.parametrize("model", sorted(MODELS))
def test_bit_exact_with_onnxruntime(model, act, per_channel, quantized):
    path = quantized(model, act, per_channel)
    result = verify_model(path, inputs=50, seed=3, progress=None)
    assert result.ok, [(o.name, o.mismatching, o.max_abs_diff) for o in result.outputs]
    assert KERNELS[model] <= {layer["op"] for layer in result.report["layers"]}


def test_unknown_contrib_op_is_unsupported(tmp_path):
    """A com.microsoft op without a rule, then a custom-domain op, leaving every later tensor untyped: exit 2 listing
    both (node, op, domain), not a shape-inference error (exit 1)."""
    w = _Weights(3)
    nodes = [helper.make_node("Conv", ["x", w("w1", (4, 3, 3, 3))], ["c"], name="conv"),
             helper.make_node("FastGelu", ["c"], ["g"], name="gelu_node", domain="com.microsoft"),
             helper.make_node("MyOp", ["g"], ["m"], name="custom_node", domain="com.example"),
             helper.make_node("Relu", ["m"], ["y"], name="relu")]
    model = _model(nodes, {"y": [1, 4, 6, 6]}, w)
    model.opset_import.extend([helper.make_opsetid("com.microsoft", 1), helper.make_opsetid("com.example", 1)])
    proc = run_cli("compile", save(model, tmp_path / "gelu.onnx"), "-o", tmp_path / "out")
    assert proc.returncode == 2, proc.stderr
    assert "2 node(s) cannot be compiled" in proc.stderr
    assert "node 'gelu_node' (com.microsoft::FastGelu)" in proc.stderr
    assert "node 'custom_node' (com.example::MyOp)" in proc.stderr
    assert "Traceback" not in proc.stderr and "inferred" not in proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("op,attrs,out_dims,reason", [
    ("QLinearReduceMean", {"axes": [2, 3], "keepdims": 1}, [1, 4, 1, 1], "onnxruntime's CPU provider has no"),
    ("QLinearGlobalAveragePool", {"channels_last": 1}, [1, 1, 1, 5], "NCHW 1-D or 2-D"),
])
def test_typed_but_unsupported_variants_say_why(op, attrs, out_dims, reason, tmp_path):
    """Contrib ops whose shape rule applies but whose variant has no kernel: rejected (exit 2) with the reason, after
    typing the tensors behind them (the Identity reads the rule's output)."""
    inits = [numpy_helper.from_array(np.array(v, t), name) for name, v, t in
             (("xs", 0.1, np.float32), ("xz", 128, np.uint8), ("ys", 0.05, np.float32), ("yz", 120, np.uint8))]
    node = helper.make_node(op, ["x", "xs", "xz", "ys", "yz"], ["m"], name="n", domain="com.microsoft", **attrs)
    graph = helper.make_graph([node, helper.make_node("Identity", ["m"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 4, 5, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8, ["n", "c", "h", "w"])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid("com.microsoft", 1)])
    path = save(model, tmp_path / "m.onnx")
    with pytest.raises(UnsupportedError, match=rf"node 'n' \(com.microsoft::{op}\): {reason}"):
        mcucomp.compile_model(path, tmp_path / "out")
    inferred, _ = load_onnx(path)
    typed = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in inferred.graph.value_info}
    assert typed["m"] == out_dims


@pytest.mark.parametrize("board", ["nucleo-l4r5zi", "nucleo-g0b1re"])
def test_on_target_bit_exact(board, quantized, tmp_path):
    """The QOperator kernels cross-compiled for Cortex-M4 (hardware float) and M0+ (soft float) compute, under QEMU,
    what the host build computes."""
    for model in sorted(MODELS):
        out = tmp_path / model
        mcucomp.compile_model(quantized(model, "u8", True), out, name="m", board=board)
        result = verify_on_target(out, board, inputs=3, seed=0, timeout_s=120)
        assert result.status == "ok", result.detail
        assert result.mismatching and not any(result.mismatching.values()), result.mismatching
