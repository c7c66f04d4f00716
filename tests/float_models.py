"""float32 models with the MLPerf Tiny KWS DS-CNN and IC ResNet-8 architectures, built with onnx.helper.

Weights are He-initialized (N(0, 2/fan_in)) from a fixed seed, so activations keep unit scale through the layers.
With `batchnorm=True` every convolution is bias-free and followed by an inference-mode BatchNormalization with
random statistics (what an un-fused training export looks like), which mcucomp must fold into the convolution.
Shapes follow /work/shared/models/mlperf_tiny/*_qdq.onnx.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class _Builder:
    """Accumulates nodes and seeded initializers; each layer method returns its output tensor name."""

    def __init__(self, seed: int, batchnorm: bool):
        self.rng = np.random.default_rng(seed)
        self.batchnorm = batchnorm
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def const(self, name: str, value: np.ndarray) -> str:
        """Add an initializer and return its name."""
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(self, op: str, inputs: list[str], name: str, **attrs) -> str:
        """Add one node named `name` whose single output is also called `name`."""
        self.nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def conv(self, x: str, name: str, c_in: int, c_out: int, kernel: tuple[int, int], stride: int, pads: list[int],
             group: int = 1, relu: bool = True) -> str:
        """Conv (+ BatchNormalization when the builder has batchnorm) (+ Relu)."""
        fan_in = c_in // group * kernel[0] * kernel[1]
        w = (self.rng.standard_normal((c_out, c_in // group, *kernel)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        inputs = [x, self.const(f"{name}_w", w)]
        if not self.batchnorm:
            inputs.append(self.const(f"{name}_b", (0.1 * self.rng.standard_normal(c_out)).astype(np.float32)))
        y = self.node("Conv", inputs, f"{name}_conv", kernel_shape=list(kernel), strides=[stride, stride],
                      pads=pads, group=group)
        if self.batchnorm:
            params = [self.rng.uniform(0.5, 1.5, c_out), 0.1 * self.rng.standard_normal(c_out),
                      0.1 * self.rng.standard_normal(c_out), self.rng.uniform(0.5, 1.5, c_out)]
            names = [self.const(f"{name}_bn_{p}", v.astype(np.float32))
                     for p, v in zip(("gamma", "beta", "mean", "var"), params)]
            y = self.node("BatchNormalization", [y] + names, f"{name}_bn", epsilon=1e-3)
        return self.node("Relu", [y], f"{name}_relu") if relu else y

    def gemm(self, x: str, name: str, n_in: int, n_out: int) -> str:
        """Gemm with transB=1 weights [n_out, n_in] and a bias."""
        w = (self.rng.standard_normal((n_out, n_in)) * np.sqrt(2.0 / n_in)).astype(np.float32)
        b = (0.1 * self.rng.standard_normal(n_out)).astype(np.float32)
        return self.node("Gemm", [x, self.const(f"{name}_w", w), self.const(f"{name}_b", b)], name, transB=1)

    def model(self, graph_name: str, x: str, x_shape: list[int], y: str, y_shape: list[int]) -> onnx.ModelProto:
        """The checked opset-13 model with IR version 8 (what onnxruntime 1.31 accepts)."""
        graph = helper.make_graph(self.nodes, graph_name,
                                  [helper.make_tensor_value_info(x, TensorProto.FLOAT, x_shape)],
                                  [helper.make_tensor_value_info(y, TensorProto.FLOAT, y_shape)], self.inits)
        proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        proto.ir_version = 8
        onnx.checker.check_model(proto, full_check=True)
        return proto


def kws_dscnn(seed: int = 0, batchnorm: bool = False) -> onnx.ModelProto:
    """DS-CNN: conv 10x4/2 (64 ch), 4x (depthwise 3x3 + pointwise 1x1, Relu each), global avgpool, FC 12, Softmax."""
    b = _Builder(seed, batchnorm)
    h = b.conv("input", "l00", 1, 64, (10, 4), 2, [4, 1, 5, 1])
    for i in range(4):
        h = b.conv(h, f"l{2 * i + 1:02d}_dw", 64, 64, (3, 3), 1, [1, 1, 1, 1], group=64)
        h = b.conv(h, f"l{2 * i + 2:02d}_pw", 64, 64, (1, 1), 1, [0, 0, 0, 0])
    h = b.node("GlobalAveragePool", [h], "pool")
    h = b.node("Reshape", [h, b.const("flat_shape", np.array([1, 64], np.int64))], "flat")
    h = b.gemm(h, "fc", 64, 12)
    b.node("Softmax", [h], "probs", axis=-1)
    return b.model("kws_dscnn_f32", "input", [1, 1, 49, 10], "probs", [1, 12])


def ic_resnet8(seed: int = 0, batchnorm: bool = False) -> onnx.ModelProto:
    """ResNet-8: conv 3x3 (16 ch), three residual stages (16/32/64 ch; stride 2 with a 1x1 projection in the last
    two), Add + Relu, AveragePool 8x8, Flatten, FC 10, Softmax."""
    b = _Builder(seed, batchnorm)
    h = b.conv("input", "l00", 3, 16, (3, 3), 1, [1, 1, 1, 1])
    c_in = 16
    for stage, c_out in enumerate((16, 32, 64)):
        stride = 1 if stage == 0 else 2
        pads = [1, 1, 1, 1] if stride == 1 else [0, 0, 1, 1]
        r = b.conv(h, f"s{stage}_a", c_in, c_out, (3, 3), stride, pads)
        r = b.conv(r, f"s{stage}_b", c_out, c_out, (3, 3), 1, [1, 1, 1, 1], relu=False)
        short = h if stage == 0 else b.conv(h, f"s{stage}_proj", c_in, c_out, (1, 1), stride, [0, 0, 0, 0],
                                           relu=False)
        h = b.node("Relu", [b.node("Add", [short, r], f"s{stage}_add")], f"s{stage}_out")
        c_in = c_out
    h = b.node("AveragePool", [h], "pool", kernel_shape=[8, 8], strides=[8, 8])
    h = b.node("Flatten", [h], "flat", axis=1)
    h = b.gemm(h, "fc", 64, 10)
    b.node("Softmax", [h], "probs", axis=-1)
    return b.model("ic_resnet8_f32", "input", [1, 3, 32, 32], "probs", [1, 10])


FLOAT_MODELS = {
    "kws_f32": lambda: kws_dscnn(seed=1),
    "kws_f32_bn": lambda: kws_dscnn(seed=2, batchnorm=True),
    "ic_f32": lambda: ic_resnet8(seed=3),
    "ic_f32_bn": lambda: ic_resnet8(seed=4, batchnorm=True),
}
