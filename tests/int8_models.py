"""Small float32 U-Net-style and MobileNetV2-style models, and their int8 QDQ versions quantized with onnxruntime's
quantize_static (per-channel int8 weights, int8 activations, seeded random calibration data)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class _Net:
    """Seeded He-initialized layers; every method returns its output tensor name."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.count = 0

    def _name(self, op: str) -> str:
        self.count += 1
        return f"{op.lower()}{self.count}"

    def node(self, op: str, inputs: list[str], **attrs) -> str:
        """One node with one output."""
        name = self._name(op)
        self.nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def const(self, value: np.ndarray) -> str:
        """An initializer."""
        name = self._name("c")
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def conv(self, x: str, c_in: int, c_out: int, k: int = 3, stride: int = 1, group: int = 1,
             act: str | None = "Relu") -> str:
        """Conv with bias, same padding, then an optional activation."""
        fan_in = c_in // group * k * k
        w = (self.rng.standard_normal((c_out, c_in // group, k, k)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        b = (0.05 * self.rng.standard_normal(c_out)).astype(np.float32)
        y = self.node("Conv", [x, self.const(w), self.const(b)], kernel_shape=[k, k], strides=[stride, stride],
                      pads=[k // 2] * 4, group=group)
        if act == "Relu6":
            return self.node("Clip", [y, self.const(np.float32(0)), self.const(np.float32(6))])
        return self.node(act, [y]) if act else y

    def model(self, x: str, x_shape, y: str, y_shape, opset: int = 13) -> onnx.ModelProto:
        """The checked model (opset 13 unless an op needs a newer one)."""
        graph = helper.make_graph(self.nodes, "net", [helper.make_tensor_value_info(x, TensorProto.FLOAT, x_shape)],
                                  [helper.make_tensor_value_info(y, TensorProto.FLOAT, y_shape)], self.inits)
        proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        proto.ir_version = 8
        onnx.checker.check_model(proto, full_check=True)
        return proto


def unet(seed: int = 0) -> onnx.ModelProto:
    """1x3x64x64 → conv, maxpool, conv, maxpool, conv, nearest Resize up + concat skip + conv (twice), 1x1 conv,
    Sigmoid head → 1x1x64x64."""
    n = _Net(seed)
    e1 = n.conv(n.conv("x", 3, 8), 8, 8)
    e2 = n.conv(n.node("MaxPool", [e1], kernel_shape=[2, 2], strides=[2, 2]), 8, 16)
    mid = n.conv(n.node("MaxPool", [e2], kernel_shape=[2, 2], strides=[2, 2]), 16, 16)
    scales = n.const(np.array([1, 1, 2, 2], np.float32))
    up2 = n.node("Resize", [mid, "", scales], mode="nearest")
    d2 = n.conv(n.node("Concat", [up2, e2], axis=1), 32, 16)
    up1 = n.node("Resize", [d2, "", scales], mode="nearest")
    d1 = n.conv(n.node("Concat", [up1, e1], axis=1), 24, 8)
    y = n.node("Sigmoid", [n.conv(d1, 8, 1, k=1, act=None)])
    return n.model("x", [1, 3, 64, 64], y, [1, 1, 64, 64])


def mobilenet_v2(seed: int = 0) -> onnx.ModelProto:
    """1x3x64x64 → stem conv (stride 2), inverted residual blocks (1x1 expand, 3x3 depthwise, 1x1 project, residual
    Add when shapes allow), global average pool, Gemm → 1x10."""
    n = _Net(seed)
    x = n.conv("x", 3, 16, stride=2, act="Relu6")
    for c_in, c_out, stride in ((16, 16, 1), (16, 24, 2), (24, 24, 1), (24, 32, 2), (32, 32, 1)):
        h = n.conv(x, c_in, c_in * 4, k=1, act="Relu6")
        h = n.conv(h, c_in * 4, c_in * 4, stride=stride, group=c_in * 4, act="Relu6")
        h = n.conv(h, c_in * 4, c_out, k=1, act=None)
        x = n.node("Add", [x, h]) if stride == 1 and c_in == c_out else h
    pooled = n.node("Flatten", [n.node("GlobalAveragePool", [x])])
    w = (n.rng.standard_normal((10, 32)) * np.sqrt(2.0 / 32)).astype(np.float32)
    y = n.node("Gemm", [pooled, n.const(w), n.const(np.zeros(10, np.float32))], transB=1)
    return n.model("x", [1, 3, 64, 64], y, [1, 10])


def pools_adds_concats(seed: int = 0, c_in: int = 3) -> onnx.ModelProto:
    """1xC_INx12x12 → conv, Sigmoid, maxpool, 1x1 conv + residual Add, Concat with the pooled tensor, 2x2 average
    pool, Flatten, Gemm → 1x10: every layout follower kernel, and a Flatten of a 3x3 image into a Gemm."""
    n = _Net(seed)
    pooled = n.node("MaxPool", [n.node("Sigmoid", [n.conv("x", c_in, 8)])], kernel_shape=[2, 2], strides=[2, 2])
    summed = n.node("Add", [pooled, n.conv(pooled, 8, 8, k=1, act=None)])
    joined = n.node("Concat", [summed, pooled], axis=1)
    flat = n.node("Flatten", [n.node("AveragePool", [joined], kernel_shape=[2, 2], strides=[2, 2])])
    w = (n.rng.standard_normal((10, 144)) * np.sqrt(2.0 / 144)).astype(np.float32)
    y = n.node("Gemm", [flat, n.const(w), n.const(np.zeros(10, np.float32))], transB=1)
    return n.model("x", [1, c_in, 12, 12], y, [1, 10])


def quantize_qdq(model: onnx.ModelProto, path, seed: int = 0, samples: int = 8, activations: str = "int8"):
    """quantize_static(QDQ, int8 (or uint8: onnxruntime's default) activations and per-channel int8 weights) of
    `model`, written to `path`."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class _Random(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(seed)
            shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
            self.data = iter([{model.graph.input[0].name: rng.standard_normal(shape).astype(np.float32)}
                              for _ in range(samples)])

        def get_next(self):
            return next(self.data, None)

    float_path = str(path) + ".float.onnx"
    onnx.save(model, float_path)
    quantize_static(float_path, str(path), _Random(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8 if activations == "uint8" else QuantType.QInt8,
                    weight_type=QuantType.QInt8)
    return path


def autoencoder(seed: int = 0) -> onnx.ModelProto:
    """The MLPerf Tiny AD architecture: 640 → 128 ×4 → 8 → 128 ×4 → 640, Gemm + Relu (none on the last)."""
    n = _Net(seed)
    x = "x"
    widths = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128, 640]
    for i, (k, m) in enumerate(zip(widths, widths[1:])):
        w = (n.rng.standard_normal((m, k)) * np.sqrt(2.0 / k)).astype(np.float32)
        x = n.node("Gemm", [x, n.const(w), n.const(np.zeros(m, np.float32))], transB=1)
        if i < len(widths) - 2:
            x = n.node("Relu", [x])
    return n.model("x", [1, 640], x, [1, 640])


def decoder(seed: int = 0) -> onnx.ModelProto:
    """1x3x32x32 → conv + LeakyRelu, reflect Pad + conv + Slice back to 32x32 + HardSwish, strided conv + Tanh,
    ConvTranspose (stride 2) back up, Mul with the skip, bilinear Resize ×2, 1x1 conv, Sigmoid → 1x1x64x64: the
    elementwise and data-movement int8 lowerings in one model."""
    n = _Net(seed)
    e = n.conv("x", 3, 8, act="LeakyRelu")
    pads = n.const(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))
    h = n.conv(n.node("Pad", [e, pads], mode="reflect"), 8, 8, act=None)  # 34x34 (same padding on the padded)
    h = n.node("HardSwish", [n.node("Slice", [h, n.const(np.array([1, 1], np.int64)),
                                              n.const(np.array([33, 33], np.int64)),
                                              n.const(np.array([2, 3], np.int64))])])
    d = n.conv(h, 8, 16, stride=2, act="Tanh")
    w = (n.rng.standard_normal((16, 8, 2, 2)) * np.sqrt(2.0 / 64)).astype(np.float32)
    up = n.node("ConvTranspose", [d, n.const(w), n.const(np.zeros(8, np.float32))], kernel_shape=[2, 2],
                strides=[2, 2])
    m = n.node("Mul", [up, e])
    scales = n.const(np.array([1, 1, 2, 2], np.float32))
    r = n.node("Resize", [m, "", scales], mode="linear")
    y = n.node("Sigmoid", [n.conv(r, 8, 1, k=1, act=None)])
    return n.model("x", [1, 3, 32, 32], y, [1, 1, 64, 64], opset=14)  # HardSwish


def data_moves(seed: int = 0) -> onnx.ModelProto:
    """1x3x16x16 → conv, Split along C into two convs and Concat, Split along H and Concat back, DepthToSpace (CRD)
    to 32x32, conv, Tile of the channels, 1x1 conv to one channel, Expand to 8 channels, 1x1 conv → 1x4x32x32: the
    int8 data-movement lowerings that follow the channels-last layout."""
    n = _Net(seed)
    e = n.conv("x", 3, 16)
    n.nodes.append(helper.make_node("Split", [e, n.const(np.array([6, 10], np.int64))], ["ca", "cb"], name="split_c",
                                    axis=1))
    joined = n.node("Concat", [n.conv("ca", 6, 8), n.conv("cb", 10, 8)], axis=1)
    n.nodes.append(helper.make_node("Split", [joined], ["top", "bottom"], name="split_h", axis=2))
    rows = n.node("Concat", [n.node("Relu", ["bottom"]), "top"], axis=2)
    d = n.node("DepthToSpace", [rows], blocksize=2, mode="CRD")  # 1x4x32x32
    t = n.node("Tile", [n.conv(d, 4, 4), n.const(np.array([1, 2, 1, 1], np.int64))])
    ex = n.node("Expand", [n.conv(t, 8, 1, k=1), n.const(np.array([1, 8, 32, 32], np.int64))])
    y = n.conv(ex, 8, 4, k=1, act=None)
    return n.model("x", [1, 3, 16, 16], y, [1, 4, 32, 32])


#: The int8 test zoo built here, quantized by quantize_static (QDQ); with the MLPerf Tiny files in ../shared/models it
#: is every int8 model the tests compile end to end (tests/test_int8_flash.py, tests/test_int8_zoo_target.py).
ZOO = {"unet": unet, "mobilenet_v2": mobilenet_v2, "autoencoder": autoencoder, "decoder": decoder,
       "pools_adds_concats": pools_adds_concats, "data_moves": data_moves,
       "unet_u8": unet, "decoder_u8": decoder}  # *_u8: uint8 activations (run as int8 by mcucomp)
SHARED_INT8 = ["kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop"]
ALL_INT8 = sorted(ZOO) + SHARED_INT8


def int8_model_path(name: str, directory) -> str:
    """Path of a zoo model quantized into `directory` (made once per directory), or of a shared MLPerf Tiny file."""
    from pathlib import Path

    from shared_models import shared_model

    if name in SHARED_INT8:
        return str(shared_model(f"mlperf_tiny/{name}.onnx"))
    path = Path(directory) / f"{name}.onnx"
    if not path.is_file():
        quantize_qdq(ZOO[name](), path, activations="uint8" if name.endswith("_u8") else "int8")
    return str(path)
