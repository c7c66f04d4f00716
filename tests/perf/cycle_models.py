"""The models the cycle estimator is checked on: the four shared MLPerf Tiny files, the float
KWS (depthwise stack) and IC ResNet-8 (residual) builds, an FC-only anomaly-detection autoencoder and a small
MobileNetV1 (depthwise stack), both int8; and, for bench/bench_cycles.py only (no test simulates it), the MobileNetV1
at MLPerf Tiny VWW's full 96x96. None of them is in the calibration set."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from float_models import ic_resnet8, kws_dscnn
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


def ad_autoencoder(seed: int = 7) -> onnx.ModelProto:
    """MLPerf Tiny AD-like FC autoencoder (640 → 128 x4 → 8 → 128 x4 → 640, ReLU between), float."""
    rng = np.random.default_rng(seed)
    sizes = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128, 640]
    nodes, inits, x = [], [], "input"
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        w = (rng.standard_normal((n_out, n_in)) * np.sqrt(2.0 / n_in)).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"fc{i}_w"),
                  numpy_helper.from_array((0.1 * rng.standard_normal(n_out)).astype(np.float32), f"fc{i}_b")]
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


#: name -> builder of every model the estimator is checked on.
CYCLE_MODELS = {
    "kws_dscnn_qdq": lambda: str(shared_model("mlperf_tiny/kws_dscnn_qdq.onnx")),
    "kws_dscnn_qop": lambda: str(shared_model("mlperf_tiny/kws_dscnn_qop.onnx")),
    "ic_resnet8_qdq": lambda: str(shared_model("mlperf_tiny/ic_resnet8_qdq.onnx")),
    "ic_resnet8_qop": lambda: str(shared_model("mlperf_tiny/ic_resnet8_qop.onnx")),
    "kws_f32": lambda: kws_dscnn(seed=1),
    "ic_f32": lambda: ic_resnet8(seed=3),
    "ad_fc_int8": lambda: with_int8_io(quantized(ad_autoencoder(), "qdq", seed=1)),
    "vww_mbnet_int8": lambda: with_int8_io(quantized(mobilenet_v1(), "qdq", seed=2)),
    # MLPerf Tiny's VWW size (96x96, 7.49 M MACs): bench only, the tests simulate the 48x48 one above
    "vww96_mbnet_int8": lambda: with_int8_io(quantized(mobilenet_v1(size=96), "qdq", seed=2)),
}
