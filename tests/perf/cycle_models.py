"""The models the cycle estimator is checked on: the four shared MLPerf Tiny files, the float
KWS (depthwise stack) and IC ResNet-8 (residual) builds, an FC-only anomaly-detection autoencoder (int8 QDQ and
QOperator) and a small MobileNetV1 (depthwise stack), int8; float keyword-spotting GRU and LSTM models; the float
benchmark's PyTorch exports (tests/pytorch_models.py FLOAT_BENCH: ResNet-8, DS-CNN, MobileNetV2-0.35, a 1-D CNN, a GRU);
the test zoo (tests/int8_models.py ZOO quantized to QDQ, tests/float_models.py); and, for bench/bench_cycles.py only (no test
simulates it), the MobileNetV1 at MLPerf Tiny VWW's full 96x96. None of them is in the calibration set."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import tempfile
from pathlib import Path

from float_models import FLOAT_MODELS, ic_resnet8, kws_dscnn
from int8_models import ZOO, quantize_qdq
import pytorch_models
from mcucomp.perf.calibration import quantized, with_int8_io
from shared_models import shared_model


def _model(name: str, nodes, inits, x_shape, y: str, y_shape) -> onnx.ModelProto:
    """A checked opset-13 float model with input 'input'."""
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, y_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def ad_autoencoder(seed: int = 7, matmul: bool = False) -> onnx.ModelProto:
    """MLPerf Tiny AD-like FC autoencoder (640 → 128 x4 → 8 → 128 x4 → 640, ReLU between), float; Gemm layers, or
    MatMul + Add (the form QOperator quantizes) when `matmul`."""
    rng = np.random.default_rng(seed)
    sizes = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128, 640]
    nodes, inits, x = [], [], "input"
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        w = (rng.standard_normal((n_out, n_in)) * np.sqrt(2.0 / n_in)).astype(np.float32)
        inits += [numpy_helper.from_array(w.T.copy() if matmul else w, f"fc{i}_w"),
                  numpy_helper.from_array((0.1 * rng.standard_normal(n_out)).astype(np.float32), f"fc{i}_b")]
        if matmul:
            nodes += [helper.make_node("MatMul", [x, f"fc{i}_w"], [f"fc{i}_mm"], name=f"fc{i}_mm"),
                      helper.make_node("Add", [f"fc{i}_mm", f"fc{i}_b"], [f"fc{i}"], name=f"fc{i}")]
        else:
            nodes.append(helper.make_node("Gemm", [x, f"fc{i}_w", f"fc{i}_b"], [f"fc{i}"], name=f"fc{i}", transB=1))
        x = f"fc{i}"
        if i < len(sizes) - 2:
            nodes.append(helper.make_node("Relu", [x], [f"fc{i}_relu"], name=f"fc{i}_relu"))
            x = f"fc{i}_relu"
    return _model("ad_fc", nodes, inits, [1, 640], x, [1, 640])


def mobilenet_v1(seed: int = 8, size: int = 48, alpha: float = 0.25) -> onnx.ModelProto:
    """MLPerf Tiny VWW-like MobileNetV1 (width 0.25) at size x size: conv 3x3/2, 13 depthwise-separable blocks,
    global average pool, FC 2, Softmax; float."""
    rng = np.random.default_rng(seed)
    nodes, inits = [], []

    def conv(x, name, c_in, c_out, k, stride, group=1):
        fan_in = c_in // group * k * k
        w = (rng.standard_normal((c_out, c_in // group, k, k)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        inits.extend([numpy_helper.from_array(w, f"{name}_w"),
                      numpy_helper.from_array((0.1 * rng.standard_normal(c_out)).astype(np.float32), f"{name}_b")])
        pads = [k // 2] * 4 if stride == 1 else [0, 0, 1, 1] if k == 3 else [0] * 4
        nodes.append(helper.make_node("Conv", [x, f"{name}_w", f"{name}_b"], [name], name=name, kernel_shape=[k, k],
                                      strides=[stride] * 2, pads=pads, group=group))
        nodes.append(helper.make_node("Relu", [name], [f"{name}_relu"], name=f"{name}_relu"))
        return f"{name}_relu"

    ch = [int(c * alpha) for c in (32, 64, 128, 128, 256, 256, 512, 512, 512, 512, 512, 512, 1024, 1024)]
    strides = [2, 1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1]
    x = conv("input", "conv0", 3, ch[0], 3, strides[0])
    for i in range(1, 14):
        x = conv(x, f"dw{i}", ch[i - 1], ch[i - 1], 3, strides[i], group=ch[i - 1])
        x = conv(x, f"pw{i}", ch[i - 1], ch[i], 1, 1)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], name="flat", axis=1))
    w = (rng.standard_normal((2, ch[-1])) * np.sqrt(2.0 / ch[-1])).astype(np.float32)
    inits += [numpy_helper.from_array(w, "fc_w"), numpy_helper.from_array(np.zeros(2, np.float32), "fc_b")]
    nodes.append(helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["fc"], name="fc", transB=1))
    nodes.append(helper.make_node("Softmax", ["fc"], ["probs"], name="probs", axis=-1))
    return _model("vww_mbnet", nodes, inits, [1, 3, size, size], "probs", [1, 2])


def kws_recurrent(cell: str, seed: int = 9, frames: int = 49, features: int = 10, hidden: int = 64) -> onnx.ModelProto:
    """A keyword-spotting recurrent model, float: 49 frames of 10 MFCC features through one GRU or LSTM layer (64
    units; the GRU takes 696 K MACs), its last hidden state through a fully connected layer to 12 classes, Softmax."""
    rng = np.random.default_rng(seed)
    gates = {"GRU": 3, "LSTM": 4}[cell]
    scale = 1.0 / np.sqrt(hidden)
    inits = [numpy_helper.from_array((scale * rng.standard_normal(s)).astype(np.float32), n) for n, s in (
        ("w", (1, gates * hidden, features)), ("r", (1, gates * hidden, hidden)), ("b", (1, 2 * gates * hidden)),
        ("fc_w", (12, hidden)), ("fc_b", (12,)))]
    inits.append(numpy_helper.from_array(np.array([1, hidden], np.int64), "h_shape"))
    nodes = [helper.make_node(cell, ["input", "w", "r", "b"], ["", "h"], name="rnn", hidden_size=hidden),
             helper.make_node("Reshape", ["h", "h_shape"], ["h2"], name="flat"),
             helper.make_node("Gemm", ["h2", "fc_w", "fc_b"], ["fc"], name="fc", transB=1),
             helper.make_node("Softmax", ["fc"], ["probs"], name="probs", axis=-1)]
    return _model(f"kws_{cell.lower()}", nodes, inits, [frames, 1, features], "probs", [1, 12])


def zoo_int8(name: str) -> str:
    """A tests/int8_models.py zoo model quantized to QDQ (int8 activations) in a temporary directory."""
    path = Path(tempfile.mkdtemp(prefix="cycle_models_")) / f"{name}.onnx"
    return str(quantize_qdq(ZOO[name](), path))


def pytorch_float(name: str) -> str:
    """A tests/pytorch_models.py float export in a temporary directory."""
    return str(pytorch_models.export(name, Path(tempfile.mkdtemp(prefix="cycle_models_")) / f"{name}.onnx"))


#: name -> builder of every model the estimator is checked on.
CYCLE_MODELS = {
    "kws_dscnn_qdq": lambda: str(shared_model("mlperf_tiny/kws_dscnn_qdq.onnx")),
    "kws_dscnn_qop": lambda: str(shared_model("mlperf_tiny/kws_dscnn_qop.onnx")),
    "ic_resnet8_qdq": lambda: str(shared_model("mlperf_tiny/ic_resnet8_qdq.onnx")),
    "ic_resnet8_qop": lambda: str(shared_model("mlperf_tiny/ic_resnet8_qop.onnx")),
    "kws_f32": lambda: kws_dscnn(seed=1),
    "ic_f32": lambda: ic_resnet8(seed=3),
    "ad_fc_int8": lambda: with_int8_io(quantized(ad_autoencoder(), "qdq", seed=1)),
    "ad_fc_qop": lambda: quantized(ad_autoencoder(matmul=True), "qop", seed=1),
    "kws_gru_f32": lambda: kws_recurrent("GRU"),
    "kws_lstm_f32": lambda: kws_recurrent("LSTM"),
    **{f"zoo_{name}": lambda name=name: zoo_int8(name) for name in ZOO if not name.endswith("_u8")},
    **{f"zoo_{name}": FLOAT_MODELS[name] for name in ("kws_f32_bn", "ic_f32_bn")},
    **{f"pytorch_{name}": lambda name=name: pytorch_float(name) for name in pytorch_models.FLOAT_BENCH},
    "vww_mbnet_int8": lambda: with_int8_io(quantized(mobilenet_v1(), "qdq", seed=2)),
    # MLPerf Tiny's VWW size (96x96, 7.49 M MACs): bench only, the tests simulate the 48x48 one above
    "vww96_mbnet_int8": lambda: with_int8_io(quantized(mobilenet_v1(size=96), "qdq", seed=2)),
}
