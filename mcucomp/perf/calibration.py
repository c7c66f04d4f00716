"""The calibration set of the cycle estimator: generated layer shapes, not the test models.

Each calibration model is a seeded random chain of convolutions (general with varied kernels, strides and pads,
depthwise, pointwise), a residual Add, pooling and fully connected layers with a Softmax, sized so that one
simulator run stays short. Every chain exists in three formats: float32, int8 QDQ and int8 QOperator (both written by
onnxruntime's quantize_static from random calibration data, per-channel weights; every other chain with 8-bit graph
input and output, as converted TFLite models have them), so that the lowering picks the int8 kernel paths the way it
does for real models. bench/fit_cycle_model.py profiles every model on the simulator
and fits each kernel path's coefficients to the per-layer cycles.

This file is part of the coefficients' fingerprint: changing the set makes the stored fit stale.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

#: The board whose simulated cycles each core's coefficients are fitted to (its memory gives the board figure).
CALIBRATION_BOARDS = {
    "cortex-m4": "nucleo-l4r5zi",
    "cortex-m33": "nucleo-u575zi",
    "cortex-m0plus": "nucleo-g0b1re",
    "cortex-m7": "disco-f746ng",
}
FORMATS = ("float", "qdq", "qop")
#: Chains per format, and the multiply-accumulates one convolution may take (keeps the simulator runs short).
CHAINS = 8
FC_CHAINS = 3
#: (channels, height, width) of each depthwise calibration chain: narrow and wide, large and small maps.
DW_CHAINS = ((8, 24, 24), (12, 9, 13), (32, 10, 8), (64, 8, 6))
#: Few-channels chains (channels, height, width of the input, first stride): first convs (an image's or a
#: spectrogram's) and convs over a few channels further on, the `few_channels` path's geometries (session 7)
FEW_CHAINS = ((3, 48, 48, 2), (3, 32, 32, 1), (1, 40, 12, 1), (4, 20, 28, 2))
MAX_CONV_MACS = 40_000
SEED = 20261123


@dataclass
class _Chain:
    """Builds one float32 chain with onnx.helper; layer methods return the output name and track its shape."""

    rng: np.random.Generator
    shape: list[int]
    nodes: list
    inits: list

    def _const(self, name: str, value: np.ndarray) -> str:
        """Add an initializer."""
        self.inits.append(numpy_helper.from_array(np.asarray(value, np.float32), name))
        return name

    def node(self, op: str, inputs: list[str], name: str, **attrs) -> str:
        """One node whose output is named like the node."""
        self.nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def conv(self, x: str, name: str, c_out: int, kernel: tuple[int, int], stride: int, pads: list[int],
             group: int = 1, relu: bool = True) -> str:
        """Conv (+ Relu) with He-scaled weights; updates the tracked shape."""
        c_in, h, w = self.shape[1:]
        fan_in = c_in // group * kernel[0] * kernel[1]
        wt = self.rng.standard_normal((c_out, c_in // group, *kernel)) * np.sqrt(2.0 / fan_in)
        b = 0.1 * self.rng.standard_normal(c_out)
        y = self.node("Conv", [x, self._const(f"{name}_w", wt), self._const(f"{name}_b", b)], name,
                      kernel_shape=list(kernel), strides=[stride, stride], pads=pads, group=group)
        oh = (h + pads[0] + pads[2] - kernel[0]) // stride + 1
        ow = (w + pads[1] + pads[3] - kernel[1]) // stride + 1
        self.shape = [1, c_out, oh, ow]
        return self.node("Relu", [y], f"{name}_relu") if relu else y

    def fc(self, x: str, name: str, n_out: int, matmul: bool) -> str:
        """A fully connected layer on a [1, n] tensor: Gemm (transB), or MatMul + Add (QOperator has no QGemm)."""
        n_in = self.shape[1]
        wt = self.rng.standard_normal((n_out, n_in)) * np.sqrt(2.0 / n_in)
        b = self._const(f"{name}_b", 0.1 * self.rng.standard_normal(n_out))
        self.shape = [1, n_out]
        if matmul:
            return self.node("Add", [self.node("MatMul", [x, self._const(f"{name}_w", wt.T)], f"{name}_mm"), b], name)
        return self.node("Gemm", [x, self._const(f"{name}_w", wt), b], name, transB=1)


def _conv_choice(rng: np.random.Generator, shape: list[int], kind: str) -> dict:
    """Random conv parameters of one kind ('general', 'depthwise', 'pointwise') that fit the input and the budget."""
    c_in, h, w = shape[1:]
    if kind == "pointwise":
        kernel, stride, pads, group = (1, 1), 1, [0, 0, 0, 0], 1
    else:
        options = [(3, 3), (5, 5), (3, 1), (1, 3), (2, 2), (4, 4), (1, 1), (5, 3)]
        kernel = options[rng.integers(len(options))]
        if kind == "depthwise" and rng.random() < 0.5:  # most depthwise convs in real models are 3x3 (own path)
            kernel = (3, 3)
        kernel = (min(kernel[0], h), min(kernel[1], w))
        stride = int(rng.choice([1, 1, 2])) if min(h, w) >= 8 else 1
        pads = [int(rng.integers(0, k // 2 + 1)) for k in kernel] * 2
        if rng.random() < 0.3:  # asymmetric, like SAME padding of even sizes
            pads[2] = int(rng.integers(0, kernel[0]))
            pads[3] = int(rng.integers(0, kernel[1]))
        group = c_in if kind == "depthwise" else 1
    oh = (h + pads[0] + pads[2] - kernel[0]) // stride + 1
    ow = (w + pads[1] + pads[3] - kernel[1]) // stride + 1
    if kind == "depthwise":
        c_out = c_in
    else:
        per_out = oh * ow * (c_in // group) * kernel[0] * kernel[1]
        c_out = int(np.clip(MAX_CONV_MACS // max(per_out, 1), 2, int(rng.choice([8, 12, 16, 24, 32, 48, 64]))))
    return {"c_out": c_out, "kernel": kernel, "stride": stride, "pads": pads, "group": group}


def float_chain(index: int, matmul: bool) -> onnx.ModelProto:
    """Calibration chain `index` in float32: convolutions of every kind, a residual Add, pooling, two fully connected
    layers (Gemm, or MatMul + Add when `matmul`) and a Softmax."""
    rng = np.random.default_rng(SEED + index)
    c_in = int(rng.choice([1, 3, 4, 8]))
    h, w = int(rng.integers(12, 33)), int(rng.integers(6, 25))
    in_shape = [1, c_in, h, w]
    ch = _Chain(rng, list(in_shape), [], [])
    x = "input"
    kinds = ["general", "depthwise", "pointwise", "general", "depthwise", "pointwise", "general"]
    for i, kind in enumerate(kinds[: 5 + index % 3]):
        if ch.shape[2] < 2 or ch.shape[3] < 2:
            kind = "pointwise"
        c = _conv_choice(rng, ch.shape, kind)
        x = ch.conv(x, f"conv{i}", c["c_out"], c["kernel"], c["stride"], c["pads"], c["group"], relu=bool(i % 4))
    # residual block: two shape-preserving 3x3 convs added to their input
    shortcut = x
    c = ch.shape[1]
    full = c * c * ch.shape[2] * ch.shape[3]  # MACs of a 1x1 conv; over budget: depthwise 3x3 convs instead
    k, group = (3, 1) if 9 * full <= MAX_CONV_MACS else (1, 1) if full <= MAX_CONV_MACS else (3, c)
    r = ch.conv(x, "res_a", c, (k, k), 1, [k // 2] * 4, group)
    r = ch.conv(r, "res_b", c, (k, k), 1, [k // 2] * 4, group, relu=False)
    x = ch.node("Relu", [ch.node("Add", [shortcut, r], "res_add")], "res_relu")
    c, h, w = ch.shape[1:]
    k = min(2 + index % 2, h, w)  # a 2x2 or 3x3 window, stride 2, padded after in every other chain
    if k >= 2:
        pad = (index // 2) % 2
        x = ch.node("AveragePool" if index % 4 == 3 else "MaxPool", [x], "pool2", kernel_shape=[k, k], strides=[2, 2],
                    pads=[0, 0, pad, pad])
        ch.shape = [1, c, (h + pad - k) // 2 + 1, (w + pad - k) // 2 + 1]
    if index % 3 == 2:  # a whole-plane AveragePool (IC ResNet's 8x8) instead of the global one
        x = ch.node("AveragePool", [x], "gap", kernel_shape=ch.shape[2:], strides=ch.shape[2:])
    else:
        x = ch.node("GlobalAveragePool", [x], "gap")
    x = ch.node("Flatten", [x], "flat", axis=1)
    ch.shape = [1, c]
    x = ch.node("Relu", [ch.fc(x, "fc1", int(rng.integers(16, 96)), matmul)], "fc1_relu")
    x = ch.fc(x, "fc2", int(rng.integers(4, 16)), matmul)
    y = ch.node("Softmax", [x], "probs", axis=-1)
    return _checked(ch, f"calib{index}", in_shape, y)


def fc_chain(index: int) -> onnx.ModelProto:
    """Fully connected calibration chain `index` in float32: Gemm layers of random widths with Relu between (the
    int8 versions with 8-bit I/O run the first and last layer on onnxruntime's float path)."""
    rng = np.random.default_rng(SEED + 1000 + index)
    sizes = [int(rng.integers(16, 160)) for _ in range(6)]  # float weights stay well inside a 512 KB flash
    ch = _Chain(rng, [1, sizes[0]], [], [])
    x = "input"
    for i, n_out in enumerate(sizes[1:]):
        x = ch.fc(x, f"fc{i}", n_out, matmul=False)
        if i < len(sizes) - 2:
            x = ch.node("Relu", [x], f"fc{i}_relu")
    return _checked(ch, f"calib_fc{index}", [1, sizes[0]], x)


def dw_chain(index: int) -> onnx.ModelProto:
    """Depthwise calibration chain `index` in float32 (DW_CHAINS): 3x3 depthwise convs padded all round (border pairs),
    unpadded (pairs inside the input) and strided, each followed by a pointwise conv, then a global pool and a fully
    connected layer; the random chains alone leave the 3x3 depthwise path's many terms short of layers."""
    rng = np.random.default_rng(SEED + 2000 + index)
    c, h, w = DW_CHAINS[index]
    ch = _Chain(rng, [1, c, h, w], [], [])
    x = "input"
    for i, (stride, pads, widen) in enumerate(((1, [1, 1, 1, 1], 1), (2, [0, 0, 1, 1], 2), (1, [0, 0, 0, 0], 1))):
        x = ch.conv(x, f"dw{i}", ch.shape[1], (3, 3), stride, pads, ch.shape[1])
        x = ch.conv(x, f"pw{i}", ch.shape[1] * widen, (1, 1), 1, [0, 0, 0, 0], 1)
    x = ch.node("Flatten", [ch.node("GlobalAveragePool", [x], "gap")], "flat", axis=1)
    ch.shape = ch.shape[:2]
    y = ch.fc(x, "fc", 4, matmul=False)
    return _checked(ch, f"calib_dw{index}", [1, c, h, w], y)


def few_chain(index: int) -> onnx.ModelProto:
    """Few-channels calibration chain `index` in float32 (FEW_CHAINS): three 3x3 convs over at most four channels
    (the first strided as given, then padded all round, then strided by 2 with the bottom and right padding), each
    but the last narrowed again by a pointwise conv, then a global pool and a fully connected layer: the random
    chains have few such layers, and those small."""
    rng = np.random.default_rng(SEED + 3000 + index)
    c, h, w, stride = FEW_CHAINS[index]
    ch = _Chain(rng, [1, c, h, w], [], [])
    x = ch.conv("input", "c0", 8, (3, 3), stride, [1, 1, 1, 1] if stride == 1 else [0, 0, 1, 1])
    x = ch.conv(ch.conv(x, "n0", 4, (1, 1), 1, [0, 0, 0, 0]), "c1", 12, (3, 3), 1, [1, 1, 1, 1])
    x = ch.conv(ch.conv(x, "n1", 3, (1, 1), 1, [0, 0, 0, 0]), "c2", 16, (3, 3), 2, [0, 0, 1, 1])
    x = ch.node("Flatten", [ch.node("GlobalAveragePool", [x], "gap")], "flat", axis=1)
    ch.shape = ch.shape[:2]
    y = ch.fc(x, "fc", 4, matmul=False)
    return _checked(ch, f"calib_few{index}", [1, c, h, w], y)


def _checked(ch: _Chain, name: str, in_shape: list[int], y: str) -> onnx.ModelProto:
    """The chain as a checked opset-13 model with input 'input' and output y."""
    graph = helper.make_graph(ch.nodes, name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, in_shape)],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, ch.shape)], ch.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


class _RandomReader:
    """quantize_static's calibration data: a few seeded random inputs (onnxruntime's CalibrationDataReader protocol)."""

    def __init__(self, shape: list[int], seed: int):
        rng = np.random.default_rng(seed)
        self.feeds = iter([{"input": rng.standard_normal(shape).astype(np.float32)} for _ in range(8)])

    def get_next(self):
        """The next feed dict, None at the end."""
        return next(self.feeds, None)


def quantized(model: onnx.ModelProto, fmt: str, seed: int) -> onnx.ModelProto:
    """The model quantized by onnxruntime's quantize_static (int8, per-channel weights) in QDQ or QOperator form."""
    import logging

    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

    logging.getLogger().setLevel(logging.ERROR)  # quantize_static's pre-processing and x64 speed advice

    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "float.onnx", Path(tmp) / "int8.onnx"
        onnx.save(model, src)
        quantize_static(src, dst, _RandomReader(shape, seed),
                        quant_format=QuantFormat.QDQ if fmt == "qdq" else QuantFormat.QOperator, per_channel=True,
                        activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
        return _with_contrib_shapes(onnx.load(dst), model)


def _with_contrib_shapes(qmodel: onnx.ModelProto, fmodel: onnx.ModelProto) -> onnx.ModelProto:
    """Declare the int8 outputs of com.microsoft QLinear* nodes, which ONNX shape inference cannot type: the shape of
    the float tensor they replace (quantize_static names them `<float name>_quantized`)."""
    inferred = onnx.shape_inference.infer_shapes(fmodel).graph
    shapes = {v.name: v.type.tensor_type.shape for v in [*inferred.value_info, *inferred.output]}
    known = {v.name for v in qmodel.graph.value_info}
    for node in qmodel.graph.node:
        if node.domain == "com.microsoft":
            for out in node.output:
                src = out.removesuffix("_quantized")
                if out not in known and src in shapes:
                    dims = [d.dim_value for d in shapes[src].dim]
                    qmodel.graph.value_info.append(helper.make_tensor_value_info(out, TensorProto.INT8, dims))
    return qmodel


def with_int8_io(qmodel: onnx.ModelProto) -> onnx.ModelProto:
    """The quantized model with 8-bit graph input and output, as converted TFLite models have them: the input's
    QuantizeLinear and the output's DequantizeLinear removed (onnxruntime then fuses other groups)."""
    g = qmodel.graph
    q = next(n for n in g.node if n.op_type == "QuantizeLinear" and n.input[0] == g.input[0].name)
    dq = next(n for n in g.node if n.op_type == "DequantizeLinear" and n.output[0] == g.output[0].name)
    shapes = [[d.dim_value for d in v.type.tensor_type.shape.dim] for v in (g.input[0], g.output[0])]
    new_in, new_out = q.output[0], dq.input[0]
    g.node.remove(q)
    g.node.remove(dq)
    del g.input[:]
    del g.output[:]
    g.input.append(helper.make_tensor_value_info(new_in, TensorProto.INT8, shapes[0]))
    g.output.append(helper.make_tensor_value_info(new_out, TensorProto.INT8, shapes[1]))
    return qmodel


def calibration_models() -> list[tuple[str, onnx.ModelProto]]:
    """(name, model) of every calibration model: each chain in every format."""
    models = []
    for i in range(CHAINS):
        for fmt in FORMATS:
            base = float_chain(i, matmul=fmt == "qop" or i % 4 == 3)
            if fmt == "float":
                models.append((f"calib{i}_float", base))
            elif i % 2:
                models.append((f"calib{i}_{fmt}_int8io", with_int8_io(quantized(base, fmt, SEED + i))))
            else:
                models.append((f"calib{i}_{fmt}", quantized(base, fmt, SEED + i)))
    for i in range(FC_CHAINS):
        base = fc_chain(i)
        models += [(f"calib_fc{i}_float", base), (f"calib_fc{i}_qdq", quantized(base, "qdq", SEED + 1000 + i)),
                   (f"calib_fc{i}_qdq_int8io", with_int8_io(quantized(base, "qdq", SEED + 1000 + i)))]
    for i in range(len(DW_CHAINS)):
        models.append((f"calib_dw{i}_qdq_int8io", with_int8_io(quantized(dw_chain(i), "qdq", SEED + 2000 + i))))
    for i in range(len(FEW_CHAINS)):
        models.append((f"calib_few{i}_qdq_int8io", with_int8_io(quantized(few_chain(i), "qdq", SEED + 3000 + i))))
    return models
