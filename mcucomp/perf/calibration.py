"""The calibration set of the cycle estimator: generated layer shapes, not the test models.

Each calibration model is a seeded random chain of convolutions (general with varied kernels, strides and pads,
depthwise, pointwise), a residual Add, pooling and fully connected layers with a Softmax, sized so that one
simulator run stays short. Every chain exists in three formats: float32, int8 QDQ and int8 QOperator (both written
by onnxruntime's quantize_static from random calibration data, per-channel weights; every other chain with 8-bit
graph input and output, as converted TFLite models have them), so that the lowering picks the int8 kernel paths the
way it does for real models. Beside them: fully connected stacks (QDQ and QOperator, up to an AD autoencoder's
widths), depthwise, few-channels and 1-D convolution chains, stacked RNN/GRU/LSTM layers (sequence length and hidden
size varied; some with W and R computed at run time), float matrix-product chains (packed, strided and runtime-B
products), data-movement chains (Transpose, Slice, Pad, Split, Concat, Gather, Tile, Expand, DepthToSpace; float and
int8) and element-wise models (every unary function, binary ops in float32 and float64, reductions, softmax,
normalization, the rarer float kernels) at three sizes, sequence models (Swish, CausalConvWithState, Attention,
EyeLike, a constant output), int8 upsampling, transposed-convolution and in-place depthwise chains, uint8 chains
with uint8 graph input and output, and int8 binary and windowed-pooling models compiled with each requantization
mode (the compile options a calibration model carries, so that every core also fits the paths of its non-default
`--requant`). bench/fit_cycle_model.py profiles every model on the simulator and fits each kernel path's
coefficients to the per-layer cycles.

This file is part of the coefficients' fingerprint: changing the set makes the stored fit stale."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from functools import cache
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
#: spectrogram's) and convs over a few channels further on, the `few_channels` path's geometries
FEW_CHAINS = ((3, 48, 48, 2), (3, 32, 32, 1), (1, 40, 12, 1), (4, 20, 28, 2))
MAX_CONV_MACS = 40_000
#: Matrix-product calibration chains (rows, input width, then the three products' output widths): odd and even
#: row counts, widths on and off the packed row blocks (8, 4, 1).
MATRIX_CHAINS = ((4, 24, 16, 12, 10), (5, 13, 21, 7, 32), (2, 40, 9, 30, 5), (7, 8, 36, 3, 19))
#: 1-D convolution calibration chains (activity-recognition style): input channels and length, then per layer
#: (output channels, kernel, stride).
CONV1D_CHAINS = ((3, 64, ((16, 9, 1), (32, 5, 1), (48, 3, 2))), (6, 48, ((12, 7, 2), (24, 3, 1), (20, 5, 1))))
#: The RNN_CHAINS indices also calibrated with runtime W and R (one dot per gate row): three per cell.
RNN_RUNTIME_CHAINS = (0, 2, 3, 5, 7, 8, 10, 12, 13)
#: Recurrent calibration models: (cell, direction, sequence length, per layer (input size, hidden size)); most
#: layers' steps x gate rows x (input + hidden) stay near MAX_CONV_MACS, one per cell reaches a keyword-spotting
#: model's size (up to 64 units, 49 steps; float FMAs, soft-float on the M0+).
RNN_CHAINS = (("GRU", "forward", 6, ((12, 16), (16, 8))), ("GRU", "bidirectional", 10, ((8, 12), (24, 6))),
              ("GRU", "forward", 3, ((40, 24), (24, 32))), ("GRU", "forward", 20, ((10, 56), (4, 4))),
              ("GRU", "reverse", 30, ((4, 20), (6, 10))),
              ("LSTM", "forward", 8, ((10, 12), (12, 20))), ("LSTM", "reverse", 4, ((32, 16), (16, 6))),
              ("LSTM", "forward", 12, ((6, 8), (8, 28))), ("LSTM", "forward", 16, ((10, 48), (4, 4))),
              ("LSTM", "bidirectional", 24, ((3, 6), (12, 10))),
              ("RNN", "forward", 16, ((8, 24), (24, 40))), ("RNN", "bidirectional", 5, ((30, 10), (20, 16))),
              ("RNN", "forward", 24, ((4, 6), (6, 64))), ("RNN", "forward", 49, ((10, 64), (4, 4))),
              ("RNN", "reverse", 2, ((48, 32), (8, 12))))
#: Data-movement calibration chains: (channels, height, width) of the float input; the int8 versions of the same
#: chains move bytes. Transpose, Slice, Pad (three modes), Gather, Concat, Split, Tile, Expand, DepthToSpace.
DATA_CHAINS = ((3, 24, 24), (8, 12, 20), (16, 16, 16), (4, 40, 8))
#: Element counts of the element-wise calibration models (unary and activation functions, binary with broadcast,
#: reductions along one axis, softmax, normalization): small to large tensors.
ELEMENTWISE_SIZES = (24, 240, 1536)
#: The int8 upsampling calibration chains: (channels, height, width) of the input, then the ConvTranspose's input
#: channels, kernel size and stride.
UPSAMPLE_CHAINS = ((3, 8, 8, 4, 2, 2), (4, 6, 10, 12, 3, 2), (8, 12, 12, 6, 2, 1))
#: The int8 transposed-convolution calibration chains: (channels, height, width) of the input, then per
#: ConvTranspose (output channels, kernel size, stride, padding).
DECONV_CHAINS = ((16, 8, 8, ((8, 2, 2, 0), (4, 3, 1, 1), (6, 4, 2, 1))),
                 (4, 6, 5, ((12, 3, 2, 1), (8, 2, 2, 0), (3, 1, 1, 0))),
                 (24, 5, 7, ((6, 2, 1, 0), (10, 3, 2, 0), (4, 2, 2, 1))))
#: The grouped-convolution calibration chains (uint8 activations): (channels, height, width) of the input and the
#: groups of the grouped conv.
GROUPED_CHAINS = ((3, 12, 10, 2), (4, 9, 14, 4), (6, 16, 8, 3))
#: Layer widths of the wide fully connected chains (an AD autoencoder's 640 -> 128 -> 8 and back), int8 only.
WIDE_FC_SIZES = ((640, 128, 128, 8, 128, 640), (320, 96, 16, 96, 320))
#: The in-place depthwise calibration chains: (channels, height, width) of the 8-bit input and the kernel of the
#: stride-1, same-grid depthwise conv that the chain's peak is (its overlap margin would grow the arena).
RING_CHAINS = ((16, 20, 20, (5, 5)), (8, 24, 12, (3, 1)), (24, 10, 14, (1, 5)))
#: (a scale, b scale, y scale) of the int8 binary calibration layers: a linear form with a tie test (a ratio of one
#: half, elements near a tie rare as in real models), and output scales so fine that no linear form fits, where the
#: C runs the requantization mode's arithmetic.
BINARY_SCALES = ((0.05, 0.0371, 0.1), (0.5, 0.4, 0.004))
#: The requantization modes every core's int8 binary and pooling calibration models are compiled with (the
#: `requant` compile option: its default follows the core's FPU, the other one is chosen with --requant).
REQUANT_MODES = ("float", "fixed")
#: Time steps of the sequence calibration models (four channels): Attention's work grows with their square.
SEQUENCE_STEPS = (6, 20, 48)
#: Heads of each sequence model's causal Attention over its four channels (a one-head Attention follows it).
SEQUENCE_HEADS = (2, 4, 1)
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

    def ints(self, name: str, values) -> str:
        """Add an int64 initializer (shapes, axes, indices)."""
        self.inits.append(numpy_helper.from_array(np.array(values, np.int64), name))
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


def fc_chain(index: int, matmul: bool = False, sizes: tuple[int, ...] | None = None) -> onnx.ModelProto:
    """Fully connected calibration chain `index` in float32: Gemm layers (MatMul + Add when `matmul`, as QOperator
    needs) of random widths, or of `sizes`, with Relu between (the int8 versions with 8-bit I/O run the first and
    last layer on onnxruntime's float path)."""
    rng = np.random.default_rng(SEED + 1000 + index)
    sizes = sizes or [int(rng.integers(16, 160)) for _ in range(6)]  # float weights stay well inside a 512 KB flash
    ch = _Chain(rng, [1, sizes[0]], [], [])
    x = "input"
    for i, n_out in enumerate(sizes[1:]):
        x = ch.fc(x, f"fc{i}", n_out, matmul=matmul)
        if i < len(sizes) - 2:
            x = ch.node("Relu", [x], f"fc{i}_relu")
    return _checked(ch, f"calib_fc{index}", [1, sizes[0]], x)


def rnn_chain(index: int, runtime_weights: bool = False) -> onnx.ModelProto:
    """Recurrent calibration model `index` (RNN_CHAINS): two stacked layers of one cell, the first's Y (directions
    folded into the features) feeding the second, whose Y_h is the output. With `runtime_weights`, W and R are
    computed from the input (scaled by a sigmoid of its mean), so the cells read them as runtime tensors."""
    rng = np.random.default_rng(SEED + 4000 + index)
    cell, direction, seq, layers = RNN_CHAINS[index]
    gates, dirs = {"RNN": 1, "GRU": 3, "LSTM": 4}[cell], 2 if direction == "bidirectional" else 1
    ch = _Chain(rng, [seq, 1, layers[0][0]], [], [])
    x = "input"
    gain = ch.node("Sigmoid", [ch.node("ReduceMean", [x], "mean", keepdims=0)], "gain") if runtime_weights else ""
    for i, (width, hidden) in enumerate(layers):
        if i:  # Y [seq, dirs, 1, hidden] -> [seq, 1, dirs * hidden], and a Gemm to this layer's input width
            y = ch.node("Transpose", [x], f"y{i}_t", perm=[0, 2, 1, 3])
            y = ch.node("Reshape", [y, ch.ints(f"y{i}_shape", [seq, dirs * prev])], f"y{i}_r")
            ch.shape = [seq, dirs * prev]
            y = ch.fc(y, f"proj{i}", width, matmul=True)
            x = ch.node("Reshape", [y, ch.ints(f"y{i}_in_shape", [seq, 1, width])], f"y{i}_in")
        scale = 1.0 / np.sqrt(hidden)
        w = ch._const(f"rnn{i}_w", scale * rng.standard_normal((dirs, gates * hidden, width)))
        r = ch._const(f"rnn{i}_r", scale * rng.standard_normal((dirs, gates * hidden, hidden)))
        b = ch._const(f"rnn{i}_b", 0.1 * rng.standard_normal((dirs, 2 * gates * hidden)))
        if runtime_weights:
            w, r = ch.node("Mul", [w, gain], f"rnn{i}_w_run"), ch.node("Mul", [r, gain], f"rnn{i}_r_run")
        outs = [f"rnn{i}_y", f"rnn{i}_h"]
        ch.nodes.append(helper.make_node(cell, [x, w, r, b], outs, name=f"rnn{i}", hidden_size=hidden,
                                         direction=direction))
        x, prev = outs[0] if i < len(layers) - 1 else outs[1], hidden
    ch.shape = [dirs, 1, prev]
    return _checked(ch, f"calib_rnn{index}{'_runtime' if runtime_weights else ''}", [seq, 1, layers[0][0]], x)


def matrix_chain(index: int) -> onnx.ModelProto:
    """Matrix-product calibration chain `index` (MATRIX_CHAINS, rows x width in): a Gemm with a bias over several
    rows (packed B, blocked), then the rows times their own transpose (MatMul over a runtime B), a Gemm with transA
    (strided), and over all of it flattened one scaled Gemm with a bias (packed B, matvec)."""
    rng = np.random.default_rng(SEED + 14000 + index)
    rows, width, n1, n2, n3 = MATRIX_CHAINS[index]
    alpha = 1.0 if index % 2 else 0.5
    ch = _Chain(rng, [rows, width], [], [])
    w1 = ch._const("g1_w", rng.standard_normal((width, n1)) / np.sqrt(width))
    x = ch.node("Gemm", ["input", w1, ch._const("g1_b", 0.1 * rng.standard_normal(n1))], "g1", alpha=alpha)
    x = ch.node("Relu", [x], "g1_relu")
    gram = ch.node("MatMul", [x, ch.node("Transpose", [x], "g1_t", perm=[1, 0])], "gram")
    w2 = ch._const("g2_w", rng.standard_normal((rows, n2)) / np.sqrt(rows * n1))
    x = ch.node("Gemm", [gram, w2, ch._const("g2_b", 0.1 * rng.standard_normal((rows, n2)))], "g2", transA=1)
    x = ch.node("Reshape", [x, ch.ints("flat_shape", [1, rows * n2])], "flat")
    w3 = ch._const("g3_w", rng.standard_normal((n3, rows * n2)) / np.sqrt(rows * n2))
    y = ch.node("Gemm", [x, w3, ch._const("g3_b", 0.1 * rng.standard_normal(n3))], "g3", transB=1, alpha=alpha,
                beta=0.5)
    ch.shape = [1, n3]
    return _checked(ch, f"calib_matrix{index}", [rows, width], y)


def conv1d_chain(index: int) -> onnx.ModelProto:
    """1-D convolution calibration chain `index` in float32 (CONV1D_CHAINS): Conv1d layers of kernels 3-9 padded to
    keep the length (stride 1) or halve it, each with a Relu, then a global average pool and a fully connected layer
    (the im2col path over 1-D windows)."""
    rng = np.random.default_rng(SEED + 15000 + index)
    c, length, layers = CONV1D_CHAINS[index]
    ch = _Chain(rng, [1, c, length], [], [])
    x = "input"
    for i, (c_out, k, stride) in enumerate(layers):
        c_in, n = ch.shape[1:]
        wt = ch._const(f"c{i}_w", rng.standard_normal((c_out, c_in, k)) * np.sqrt(2.0 / (c_in * k)))
        x = ch.node("Conv", [x, wt, ch._const(f"c{i}_b", 0.1 * rng.standard_normal(c_out))], f"c{i}",
                    kernel_shape=[k], strides=[stride], pads=[k // 2, k // 2])
        x = ch.node("Relu", [x], f"c{i}_relu")
        ch.shape = [1, c_out, (n + 2 * (k // 2) - k) // stride + 1]
    x = ch.node("Flatten", [ch.node("GlobalAveragePool", [x], "gap")], "flat", axis=1)
    ch.shape = ch.shape[:2]
    y = ch.fc(x, "fc", 6, matmul=False)
    return _checked(ch, f"calib_conv1d{index}", [1, c, length], y)


def data_chain(index: int) -> onnx.ModelProto:
    """Data-movement calibration chain `index` in float32 (DATA_CHAINS): channels-last Transpose and back, rows and
    columns swapped and back, a
    stepped Slice, Pad in constant, reflect and edge modes, Split and Concat along channels and rows, a Gather of
    channels, Tile, Expand and DepthToSpace, with 1x1 convs between so that the int8 versions keep every step int8,
    and a 2x2 max pool before the last Transpose."""
    rng = np.random.default_rng(SEED + 5000 + index)
    c, h, w = DATA_CHAINS[index]
    ch = _Chain(rng, [1, c, h, w], [], [])
    i64 = ch.ints
    x = ch.node("Transpose", ["input"], "to_nhwc", perm=[0, 2, 3, 1])
    x = ch.node("Transpose", [x], "to_nchw", perm=[0, 3, 1, 2])
    x = ch.node("Transpose", [x], "swap_hw", perm=[0, 1, 3, 2])
    x = ch.node("Transpose", [x], "swap_back", perm=[0, 1, 3, 2])
    x = ch.node("Slice", [x, i64("sl_s", [0, 1]), i64("sl_e", [h, w]), i64("sl_a", [2, 3]),
                          i64("sl_st", [1 + index % 2, 2])], "slice")
    h, w = len(range(0, h, 1 + index % 2)), len(range(1, w, 2))
    x = ch.node("Pad", [x, i64("pad_c", [0, 0, 1, 2, 0, 0, 2, 1])], "pad_const")
    h, w = h + 3, w + 3
    x = ch.node("Pad", [x, i64("pad_r", [0, 0, 1, 1, 0, 0, 1, 1])], "pad_reflect", mode="reflect")
    x = ch.node("Pad", [x, i64("pad_e", [0, 0, 0, 1, 0, 0, 2, 0])], "pad_edge", mode="edge")
    h, w = h + 4, w + 3
    ch.shape = [1, c, h, w]
    x = ch.conv(x, "mix0", 2 * c, (1, 1), 1, [0, 0, 0, 0], relu=False)
    half = ch.shape[1] // 2
    ch.nodes.append(helper.make_node("Split", [x, i64("split_c", [half - 1, half + 1])], ["sc0", "sc1"],
                                     name="split_c", axis=1))
    x = ch.node("Concat", ["sc1", "sc0"], "concat_c", axis=1)
    ch.nodes.append(helper.make_node("Split", [x, i64("split_h", [h // 2, h - h // 2])], ["sh0", "sh1"],
                                     name="split_h", axis=2))
    x = ch.node("Concat", ["sh1", "sh0"], "concat_h", axis=2)
    picks = [int(k) for k in rng.permutation(2 * c)[: max(2, c)]]
    x = ch.node("Gather", [x, i64("gather_i", picks)], "gather_c", axis=1)
    ch.shape = [1, len(picks), h, w]
    x = ch.node("Tile", [x, i64("tile_r", [1, 1, 1, 2])], "tile_w")
    ch.shape[3] *= 2
    x = ch.conv(x, "mix1", 4, (1, 1), 1, [0, 0, 0, 0], relu=False)
    x = ch.node("DepthToSpace", [x], "d2s", blocksize=2, mode="DCR")
    ch.shape = [1, 1, 2 * ch.shape[2], 2 * ch.shape[3]]
    x = ch.node("Expand", [x, i64("expand_s", [1, 2, 1, 1])], "expand_c")
    ch.shape[1] = 2
    # 2x2 windows at stride 2 (float: maxpool_f32's loop without bounds checks, of which the random chains have two)
    x = ch.node("MaxPool", [x], "pool_out", kernel_shape=[2, 2], strides=[2, 2])
    ch.shape = [1, 2, ch.shape[2] // 2, ch.shape[3] // 2]
    x = ch.node("Transpose", [x], "to_nhwc_out", perm=[0, 2, 3, 1])
    ch.shape = [1, ch.shape[2], ch.shape[3], 2]
    return _checked(ch, f"calib_data{index}", [1, c, *DATA_CHAINS[index][1:]], x)


#: The element-wise calibration ops: (ONNX op, attributes), applied one after the other (values kept finite: the
#: functions defined on part of the line follow an Abs or a squashing function).
ELEMENTWISE_OPS = (("Sigmoid", {}), ("Tanh", {}), ("Exp", {}), ("Log", {}), ("Erf", {}), ("Elu", {}),
                   ("Celu", {}), ("Selu", {}), ("Softplus", {}), ("Mish", {}), ("Gelu", {}),
                   ("Gelu", {"approximate": "tanh"}), ("Neg", {}), ("Abs", {}), ("Sqrt", {}),
                   ("Floor", {}), ("Ceil", {}), ("Round", {}), ("Sign", {}), ("Softsign", {}),
                   ("HardSigmoid", {}), ("HardSwish", {}), ("Reciprocal", {}), ("Sin", {}), ("Cos", {}),
                   ("Tan", {}), ("Atan", {}), ("Sinh", {}), ("Asinh", {}), ("Tanh", {}), ("Asin", {}), ("Acos", {}),
                   ("Cosh", {}), ("Acosh", {}), ("Tanh", {}), ("Atanh", {}),
                   ("LeakyRelu", {"alpha": 0.1}), ("Relu", {}), ("ThresholdedRelu", {"alpha": 0.2}),
                   ("Shrink", {"lambd": 0.1}))


def elementwise_chain(index: int) -> onnx.ModelProto:
    """Element-wise calibration model `index` in float32 on ELEMENTWISE_SIZES[index] elements ([1, 4, n / 4]): every
    ELEMENTWISE_OPS function, Clip (two-sided and max-only), PRelu, the binary ops with a per-channel constant
    (broadcast) and a tensor of the same shape, reductions along the last axis, Softmax and LogSoftmax,
    LayerNormalization, CumSum and ArgMax, and a Reshape into the graph output (a copy)."""
    rng = np.random.default_rng(SEED + 6000 + index)
    n = ELEMENTWISE_SIZES[index]
    shape = [1, 4, n // 4]
    ch = _Chain(rng, list(shape), [], [])
    x = ch.node("Clip", ["input", ch._const("clip_lo", -2.0), ch._const("clip_hi", 2.0)], "clip")
    x = ch.node("Clip", [x, "", ch._const("clip_max", 1.5)], "clip_upper")  # clamp_f32's loop with every part
    for k, (op, attrs) in enumerate(ELEMENTWISE_OPS):
        x = ch.node(op, [x], f"{op.lower()}{k}", **attrs)
        if op in ("Exp", "Neg", "Reciprocal"):  # keep the next function's argument in range
            x = ch.node("Tanh", [x], f"squash{k}")
    x = ch.node("PRelu", [x, ch._const("slope", rng.uniform(0.1, 0.3, (4, 1)))], "prelu")
    per_channel = ch._const("per_channel", rng.uniform(0.5, 1.5, (4, 1)))
    for op in ("Add", "Sub", "Mul", "Div", "Max", "Min"):
        x = ch.node(op, [x, per_channel], f"{op.lower()}_bc")
    y = ch.node("Mul", [x, ch.node("Sigmoid", [x], "gate")], "mul_same")
    y = ch.node("Add", [y, x], "add_same")
    y = ch.node("Sub", [y, x], "sub_same")
    y = ch.node("Max", [y, x], "max_same")
    y = ch.node("Div", [y, ch.node("Add", [ch.node("Abs", [x], "abs_d"), ch._const("one", 1.0)], "den")], "div_same")
    y = ch.node("Softmax", [y], "softmax", axis=-1)
    y = ch.node("LogSoftmax", [y], "logsoftmax", axis=-1)
    norm = ch.node("LayerNormalization", [y, ch._const("ln_g", rng.uniform(0.5, 1.5, n // 4)),
                                          ch._const("ln_b", 0.1 * rng.standard_normal(n // 4))], "layernorm", axis=-1)
    y = ch.node("CumSum", [norm, ch.ints("cs_axis", -1)], "cumsum")
    sums = [ch.node(op, [y, ch.ints(f"{op}_axes", [-1])], op.lower(), keepdims=1)
            for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceL2", "ReduceSumSquare")]
    total = sums[0]
    for k, s in enumerate(sums[1:]):
        total = ch.node("Add", [total, s], f"sum_reduce{k}")
    am = ch.node("Cast", [ch.node("ArgMax", [y], "argmax", axis=-1, keepdims=1)], "argmax_f", to=TensorProto.FLOAT)
    out = ch.node("Add", [total, am], "sum_argmax")
    ch.shape = [1, 4]
    out = ch.node("Reshape", [out, ch.ints("out_shape", ch.shape)], "out")  # into the graph output: a copy
    return _checked(ch, f"calib_elementwise{index}", shape, out, opset=20)


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


def misc_chain(index: int) -> onnx.ModelProto:
    """Calibration model `index` in float32 on ELEMENTWISE_SIZES[index] elements ([1, 4, n / 4]) for the kernels the
    other chains do not reach: BatchNormalization, LRN, Pow, Min, Hardmax, IsNaN and Where on a comparison, TopK,
    Trilu, Resize (nearest and linear), MaxPool, LpPool, ConvTranspose, Einsum, GatherElements, GatherND,
    ScatterElements, OneHot, and integer Abs, Add and Cast on ArgMax's indices."""
    rng = np.random.default_rng(SEED + 7000 + index)
    n = ELEMENTWISE_SIZES[index]
    m = n // 4
    ch = _Chain(rng, [1, 4, m], [], [])
    x = ch.node("BatchNormalization", ["input", *(ch._const(f"bn_{k}", v) for k, v in (
        ("scale", rng.uniform(0.5, 1.5, 4)), ("bias", rng.standard_normal(4)), ("mean", rng.standard_normal(4)),
        ("var", rng.uniform(0.5, 1.5, 4))))], "bn")
    x = ch.node("LRN", [x], "lrn", size=3)
    x = ch.node("Pow", [ch.node("Abs", [x], "abs_p"), ch._const("exponent", 1.5)], "pow")
    x = ch.node("Min", [x, ch.node("Hardmax", [x], "hardmax", axis=-1)], "min")
    nan = ch.node("Cast", [ch.node("IsNaN", [x], "isnan")], "isnan_f", to=TensorProto.FLOAT)
    x = ch.node("Where", [ch.node("Greater", [x, nan], "greater"), x, nan], "where")
    top = ["topk_v", "topk_i"]
    ch.nodes.append(helper.make_node("TopK", [x, ch.ints("k", [2])], top, name="topk", axis=-1))
    x = ch.node("Trilu", [x], "trilu", upper=0)
    up = ch.node("Resize", [x, "", ch._const("up", [1.0, 1.0, 2.0])], "resize_nearest", mode="nearest")
    up = ch.node("Resize", [up, "", ch._const("down", [1.0, 1.0, 0.5])], "resize_linear", mode="linear")
    pooled = ch.node("MaxPool", [up], "maxpool", kernel_shape=[2], strides=[2])
    lp = ch.node("LpPool", [up], "lppool", kernel_shape=[3], pads=[1, 1], p=2)
    ct_w, ct_b = ch._const("ct_w", 0.3 * rng.standard_normal((4, 4, 2))), ch._const("ct_b", rng.standard_normal(4))
    ct = ch.node("ConvTranspose", [pooled, ct_w, ct_b], "convtranspose", kernel_shape=[2], strides=[2])
    x = ch.node("Add", [lp, ct], "add_ct")
    x = ch.node("Einsum", [x, ch._const("ein_w", rng.standard_normal((m, 4)) / np.sqrt(m))], "einsum",
                equation="bij,jk->bik")
    idx = ch.ints("ge_idx", rng.integers(0, 4, (1, 4, 4)))
    x = ch.node("GatherElements", [x, idx], "gather_elements", axis=1)
    x = ch.node("GatherND", [x, ch.ints("gnd_idx", [[0, 3], [0, 1]])], "gather_nd")
    ch.shape = [2, 4]
    x = ch.node("ScatterElements", [x, ch.ints("sc_idx", [[1, 0], [0, 2]]), ch._const("sc_v", np.ones((2, 2)))],
                "scatter", axis=1)
    arg = ch.node("ArgMax", [x], "argmax", axis=1, keepdims=0)
    arg = ch.node("Add", [ch.node("Abs", [arg], "abs_int"), ch.ints("one_i", [1])], "add_int")
    onehot = ch.node("OneHot", [arg, ch.ints("depth", [5]), ch._const("values", [0.0, 1.0])], "onehot", axis=-1)
    x = ch.node("Add", [ch.node("ReduceSum", [onehot, ch.ints("oh_axes", [-1])], "oh_sum", keepdims=0),
                        ch.node("Cast", [ch.node("ReduceSum", ["topk_i", ch.ints("ti_axes", [1, 2])], "topk_sum",
                                                 keepdims=0)], "topk_f", to=TensorProto.FLOAT)], "out")
    ch.shape = [2]
    return _checked(ch, f"calib_misc{index}", [1, 4, m], x, opset=14)


def numeric_chain(index: int) -> onnx.ModelProto:
    """Calibration model `index` in float32 on ELEMENTWISE_SIZES[index] elements ([1, 4, n / 4]) for the remaining
    float kernels: Mod (both kinds) and Min, the float64 binary ops (broadcast and same shape), DynamicQuantizeLinear,
    per-channel QuantizeLinear and DequantizeLinear, Pad in wrap mode, MaxPool with indices and MaxUnpool,
    GridSample and SoftmaxCrossEntropyLoss."""
    rng = np.random.default_rng(SEED + 10000 + index)
    m = ELEMENTWISE_SIZES[index] // 4
    ch = _Chain(rng, [1, 4, m], [], [])
    per_channel = ch._const("per_channel", rng.uniform(0.5, 1.5, (4, 1)))
    den = ch.node("Add", [ch.node("Abs", ["input"], "abs_d"), ch._const("one", 1.0)], "den")
    x = ch.node("Mod", ["input", per_channel], "mod_bc", fmod=0)
    x = ch.node("Mod", [x, per_channel], "fmod_bc", fmod=1)
    x = ch.node("Mod", [x, den], "mod_same", fmod=0)
    x = ch.node("Mod", [x, den], "fmod_same", fmod=1)
    x = ch.node("Min", [x, den], "min_same")
    d = ch.node("Cast", [x], "to_double", to=TensorProto.DOUBLE)
    den64 = ch.node("Cast", [den], "den_double", to=TensorProto.DOUBLE)
    ch.inits.append(numpy_helper.from_array(rng.uniform(0.5, 1.5, (4, 1)), "per_channel64"))
    for op, attrs in (("Add", {}), ("Sub", {}), ("Mul", {}), ("Div", {}), ("Max", {}), ("Min", {}),
                      ("Mod", {"fmod": 0}), ("Mod", {"fmod": 1})):
        tag = op.lower() + ("f" if attrs.get("fmod") else "")
        d = ch.node(op, [d, "per_channel64"], f"{tag}_bc64", **attrs)
        d = ch.node(op, [d, den64], f"{tag}_same64", **attrs)
    x = ch.node("Cast", [d], "to_float", to=TensorProto.FLOAT)
    dynamic = ["dq_y", "dq_scale", "dq_zp"]
    ch.nodes.append(helper.make_node("DynamicQuantizeLinear", [x], dynamic, name="dynamic_quantize"))
    x = ch.node("DequantizeLinear", dynamic, "dynamic_dequantize")
    scales = ch._const("q_scale", rng.uniform(0.01, 0.05, 4))
    ch.inits.append(numpy_helper.from_array(np.zeros(4, np.int8), "q_zp"))
    q = ch.node("QuantizeLinear", [x, scales, "q_zp"], "quantize_pc", axis=1)
    x = ch.node("DequantizeLinear", [q, scales, "q_zp"], "dequantize_pc", axis=1)
    x = ch.node("Pad", [x, ch.ints("pads", [0, 0, 1, 0, 0, 2])], "pad_wrap", mode="wrap")
    x = ch.node("Slice", [x, ch.ints("crop_s", [0]), ch.ints("crop_e", [m]), ch.ints("crop_a", [2])], "crop")
    x = ch.node("Reshape", [x, ch.ints("image_shape", [1, 4, 1, m])], "image")
    ch.nodes.append(helper.make_node("MaxPool", [x], ["pool_v", "pool_i"], name="maxpool_indices",
                                     kernel_shape=[1, 2], strides=[1, 2]))
    x = ch.node("MaxUnpool", ["pool_v", "pool_i"], "maxunpool", kernel_shape=[1, 2], strides=[1, 2])
    x = ch.node("GridSample", [x, ch._const("grid", rng.uniform(-1, 1, (1, 1, m, 2)))], "gridsample")
    x = ch.node("Reshape", [x, ch.ints("logits_shape", [4, m])], "logits")
    y = ch.node("SoftmaxCrossEntropyLoss", [x, ch.ints("labels", rng.integers(0, m, 4))], "loss")
    ch.shape = []
    return _checked(ch, f"calib_numeric{index}", [1, 4, m], y, opset=20)


def mixed_dtype_chain(index: int) -> onnx.ModelProto:
    """Calibration model `index` in float32 on ELEMENTWISE_SIZES[index] elements ([1, 4, n / 4]) for the kernels
    that take other element types inside a float model: MaxPool on int8 and uint8 data (with and without indices)
    and a three-axis byte Transpose, Clip on ArgMax's int64 indices, Dropout with its mask, ConvInteger after
    DynamicQuantizeLinear, and DeformConv."""
    rng = np.random.default_rng(SEED + 11000 + index)
    m = ELEMENTWISE_SIZES[index] // 4
    ch = _Chain(rng, [1, 4, m], [], [])
    sums = []

    def total(x: str, name: str, axes: list[int]) -> str:
        """Float sum of x over `axes` (kept as a [1] tensor for the final sum)."""
        x = ch.node("Cast", [x], f"{name}_f", to=TensorProto.FLOAT)
        x = ch.node("ReduceSum", [x, ch.ints(f"{name}_axes", axes)], f"{name}_sum", keepdims=1)
        return ch.node("Reshape", [x, ch.ints(f"{name}_one_shape", [1])], f"{name}_one")

    for dtype, name in ((np.int8, "s8"), (np.uint8, "u8")):
        ch.inits.append(numpy_helper.from_array(np.array(3 if dtype == np.uint8 else 0, dtype), f"zp_{name}"))
        q = ch.node("QuantizeLinear", ["input", ch._const(f"scale_{name}", 0.05), f"zp_{name}"], f"quantize_{name}")
        ch.nodes.append(helper.make_node("MaxPool", [q], [f"pool_{name}", f"pool_{name}_i"],
                                         name=f"maxpool_indices_{name}", kernel_shape=[2], strides=[2]))
        sums.append(total(f"pool_{name}_i", f"indices_{name}", [0, 1, 2]))
        p = ch.node("MaxPool", [q], f"maxpool_{name}", kernel_shape=[3], pads=[1, 1])
        p = ch.node("Reshape", [p, ch.ints(f"rank3_{name}", [4, 2, m // 2])], f"rank3_{name}_r")
        t = ch.node("Transpose", [p], f"transpose_{name}", perm=[2, 1, 0])
        sums.append(total(ch.node("DequantizeLinear", [t, f"scale_{name}", f"zp_{name}"], f"dequantize_{name}"),
                          f"bytes_{name}", [0, 1, 2]))
    clipped = ch.node("Clip", [ch.node("ArgMax", ["input"], "argmax", axis=-1, keepdims=0), ch.ints("lo", 1),
                               ch.ints("hi", m - 2)], "clip_int")
    sums.append(total(clipped, "clipped", [0, 1]))
    ch.nodes.append(helper.make_node("Dropout", ["input", ch._const("ratio", 0.5)], ["drop_y", "drop_mask"],
                                     name="dropout"))
    sums.append(total("drop_mask", "mask", [0, 1, 2]))
    image = ch.node("Reshape", ["drop_y", ch.ints("image_shape", [1, 4, 1, m])], "image")
    dynamic = ["dq_y", "dq_scale", "dq_zp"]
    ch.nodes.append(helper.make_node("DynamicQuantizeLinear", [image], dynamic, name="dynamic_quantize"))
    ch.inits.append(numpy_helper.from_array(rng.integers(100, 156, (4, 4, 1, 3)).astype(np.uint8), "integer_w"))
    conv = ch.node("ConvInteger", ["dq_y", "integer_w", "dq_zp"], "conv_integer", pads=[0, 1, 0, 1])
    sums.append(total(conv, "conv_integer", [0, 1, 2, 3]))
    offsets = ch._const("offsets", 0.5 * rng.standard_normal((1, 6, 1, m)))
    deform_w = ch._const("deform_w", 0.3 * rng.standard_normal((4, 4, 1, 3)))
    deform = ch.node("DeformConv", [image, deform_w, offsets], "deform_conv", pads=[0, 1, 0, 1])
    sums.append(total(deform, "deform", [0, 1, 2, 3]))
    y = sums[0]
    for k, s in enumerate(sums[1:]):
        y = ch.node("Add", [y, s], f"total{k}")
    ch.shape = [1]
    return _checked(ch, f"calib_mixed{index}", [1, 4, m], y, opset=19)


def grouped_chain(index: int) -> onnx.ModelProto:
    """Grouped-convolution calibration chain `index` in float32 (GROUPED_CHAINS), and for its QDQ version with uint8
    activations: a conv, a grouped 3x3 conv, a 3x3 conv, Softmax across the channels (which keeps the rest of the
    chain channels-first), a 3x3 AveragePool, a global pool and a fully connected layer."""
    rng = np.random.default_rng(SEED + 12000 + index)
    c, h, w, groups = GROUPED_CHAINS[index]
    ch = _Chain(rng, [1, c, h, w], [], [])
    x = ch.conv("input", "c0", 4 * groups, (3, 3), 1, [1, 1, 1, 1])
    x = ch.conv(x, "grouped", 4 * groups, (3, 3), 1, [1, 1, 1, 1], group=groups)
    x = ch.conv(x, "c1", 8, (3, 3), 1, [1, 1, 1, 1])
    x = ch.node("Softmax", [x], "softmax_c", axis=1)
    x = ch.node("AveragePool", [x], "avgpool", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    x = ch.node("Flatten", [ch.node("GlobalAveragePool", [x], "gap")], "flat", axis=1)
    ch.shape = [1, 8]
    y = ch.fc(x, "fc", 4, matmul=False)
    return _checked(ch, f"calib_grouped{index}", [1, c, h, w], y)


def upsample_chain(index: int) -> onnx.ModelProto:
    """Upsampling calibration chain `index` in float32 (UPSAMPLE_CHAINS), for its int8 version: nearest Resize up,
    a Sigmoid-gated Mul, ConvTranspose, linear Resize down, reflect Pad, a 3x3 AveragePool over three channels and a
    2x2 one over 4k, a dilated conv, then a global pool and a fully connected layer (the decoder-style int8
    kernels)."""
    rng = np.random.default_rng(SEED + 8000 + index)
    c, h, w, ct_in, k, s = UPSAMPLE_CHAINS[index]
    ch = _Chain(rng, [1, c, h, w], [], [])
    x = ch.conv("input", "c0", 8, (3, 3), 1, [1, 1, 1, 1])
    x = ch.node("Resize", [x, "", ch._const("up", [1.0, 1.0, 2.0, 2.0])], "resize_nearest", mode="nearest")
    ch.shape = [1, 8, 2 * h, 2 * w]
    x = ch.conv(x, "c1", ct_in, (1, 1), 1, [0, 0, 0, 0], relu=False)
    x = ch.node("Mul", [x, ch.node("Sigmoid", [x], "gate")], "mul_gate")
    wt = 0.3 * rng.standard_normal((ct_in, 4, k, k))
    x = ch.node("ConvTranspose", [x, ch._const("ct_w", wt), ch._const("ct_b", 0.1 * rng.standard_normal(4))],
                "convtranspose", kernel_shape=[k, k], strides=[s, s])
    x = ch.node("Resize", [x, "", ch._const("down", [1.0, 1.0, 0.25, 0.25])], "resize_linear", mode="linear")
    h, w = [((2 * n - 1) * s + k) // 4 for n in (h, w)]
    x = ch.node("Pad", [x, ch.ints("pads", [0, 0, 1, 1, 0, 0, 1, 1])], "pad_reflect", mode="reflect")
    ch.shape = [1, 4, h + 2, w + 2]
    x = ch.conv(x, "c2", 3, (1, 1), 1, [0, 0, 0, 0])
    x = ch.node("AveragePool", [x], "avgpool", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    x = ch.conv(x, "c3", 4 * (index + 1), (1, 1), 1, [0, 0, 0, 0])
    x = ch.node("AveragePool", [x], "avgpool_words", kernel_shape=[2, 2], pads=[0, 0, 1, 1])
    dil_w = ch._const("dil_w", 0.3 * rng.standard_normal((6, 4 * (index + 1), 3, 3)))
    dil_b = ch._const("dil_b", np.zeros(6))
    x = ch.node("Conv", [x, dil_w, dil_b], "dilated", kernel_shape=[3, 3], dilations=[2, 2], pads=[2, 2, 2, 2])
    ch.shape = [1, 6, h + 2, w + 2]
    x = ch.node("Flatten", [ch.node("GlobalAveragePool", [x], "gap")], "flat", axis=1)
    ch.shape = [1, 6]
    y = ch.fc(x, "fc", 4, matmul=False)
    return _checked(ch, f"calib_upsample{index}", [1, *UPSAMPLE_CHAINS[index][:3]], y)


def deconv_chain(index: int) -> onnx.ModelProto:
    """Transposed-convolution calibration chain `index` in float32 (DECONV_CHAINS), for its int8 version: three
    ConvTranspose layers of varied kernels, strides, paddings and channels, then a global pool and a fully connected
    layer."""
    rng = np.random.default_rng(SEED + 9000 + index)
    c, h, w, layers = DECONV_CHAINS[index]
    ch = _Chain(rng, [1, c, h, w], [], [])
    x = "input"
    for i, (c_out, k, s, pad) in enumerate(layers):
        c_in = ch.shape[1]
        wt = ch._const(f"ct{i}_w", rng.standard_normal((c_in, c_out, k, k)) / np.sqrt(c_in * k * k / s / s))
        x = ch.node("ConvTranspose", [x, wt, ch._const(f"ct{i}_b", 0.1 * rng.standard_normal(c_out))], f"ct{i}",
                    kernel_shape=[k, k], strides=[s, s], pads=[pad] * 4)
        ch.shape = [1, c_out, *((n - 1) * s + k - 2 * pad for n in ch.shape[2:])]
    x = ch.node("Flatten", [ch.node("GlobalAveragePool", [x], "gap")], "flat", axis=1)
    ch.shape = ch.shape[:2]
    y = ch.fc(x, "fc", 4, matmul=False)
    return _checked(ch, f"calib_deconv{index}", [1, c, h, w], y)


def ring_chain(index: int) -> onnx.ModelProto:
    """In-place depthwise calibration chain `index` in float32 (RING_CHAINS), for its int8 version with 8-bit input
    and output: a stride-1 depthwise conv that keeps the grid (the chain's largest layer, so that the depthwise
    path's overlap margin would grow the arena and the conv runs in place with a ring), a global pool and a fully
    connected layer."""
    rng = np.random.default_rng(SEED + 13000 + index)
    c, h, w, kernel = RING_CHAINS[index]
    ch = _Chain(rng, [1, c, h, w], [], [])
    pads = [kernel[0] // 2, kernel[1] // 2, kernel[0] // 2, kernel[1] // 2]
    x = ch.conv("input", "dw", c, kernel, 1, pads, c)
    x = ch.node("Flatten", [ch.node("GlobalAveragePool", [x], "gap")], "flat", axis=1)
    ch.shape = ch.shape[:2]
    y = ch.fc(x, "fc", 4, matmul=False)
    return _checked(ch, f"calib_ring{index}", [1, c, h, w], y)


def avgpool_chain(index: int) -> onnx.ModelProto:
    """Windowed average-pool calibration chain `index` in float32 on ELEMENTWISE_SIZES[index] pixels of four
    channels, for its QOperator version (QLinearAveragePool, run in float with --requant float): a 3x3 conv, a 3x3
    pool padded all round, a 2x2 pool with the bottom and right padding, Softmax across the channels (the rest stays
    channels-first), a strided 3x3 pool, then a global pool and a fully connected layer. No pointwise conv: its
    float-mode rows on small maps would pull the pointwise fit away from the int8 models' layers."""
    rng = np.random.default_rng(SEED + 14000 + index)
    side = int(np.sqrt(ELEMENTWISE_SIZES[index])) + 2
    ch = _Chain(rng, [1, 4, side, side], [], [])
    x = ch.conv("input", "c0", 8, (3, 3), 1, [1, 1, 1, 1])
    x = ch.node("AveragePool", [x], "avgpool3", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    x = ch.node("AveragePool", [x], "avgpool2", kernel_shape=[2, 2], pads=[0, 0, 1, 1])
    x = ch.node("Softmax", [x], "softmax_c", axis=1)
    x = ch.node("AveragePool", [x], "avgpool_strided", kernel_shape=[3, 3], strides=[2, 2])
    x = ch.node("Flatten", [ch.node("GlobalAveragePool", [x], "gap")], "flat", axis=1)
    ch.shape = [1, 8]
    y = ch.fc(x, "fc", 4, matmul=False)
    return _checked(ch, f"calib_avgpool{index}", [1, 4, side, side], y)


def binary_qdq_chain(index: int) -> onnx.ModelProto:
    """Int8 QDQ calibration model `index` on ELEMENTWISE_SIZES[index] elements ([1, 4, n / 4]) with chosen scales
    (BINARY_SCALES): per scale triple an Add and a Mul of two quantized copies of the input and of the input and its
    per-channel maximum (broadcast), each quantized to the triple's output scale, and a Softmax from int8 to uint8
    codes (onnxruntime's 1/256 output scale); every result is a graph output."""
    rng = np.random.default_rng(SEED + 15000 + index)
    m = ELEMENTWISE_SIZES[index] // 4
    ch = _Chain(rng, [1, 4, m], [], [])

    def qdq(x: str, name: str, scale: float, zp_type=np.int8) -> str:
        """x through QuantizeLinear and DequantizeLinear with the given scale and zero point 0."""
        ch._const(f"{name}_s", scale)
        ch.inits.append(numpy_helper.from_array(np.array(0, zp_type), f"{name}_zp"))
        q = ch.node("QuantizeLinear", [x, f"{name}_s", f"{name}_zp"], f"{name}_q")
        return ch.node("DequantizeLinear", [q, f"{name}_s", f"{name}_zp"], name)

    peak = ch.node("ReduceMax", ["input"], "peak", axes=[-1], keepdims=1)
    outputs = []
    for k, (sa, sb, sy) in enumerate(BINARY_SCALES):
        a, b = qdq("input", f"a{k}", sa), qdq("input", f"b{k}", sb)
        b_bc = qdq(peak, f"b{k}_bc", sb)
        for op in ("Add", "Mul"):
            y_scale = sy if op == "Add" else sa * sb / sy * 2  # Mul: the product's scale at the same fineness
            outputs += [qdq(ch.node(op, [a, b], f"{op.lower()}{k}"), f"{op.lower()}{k}_y", y_scale),
                        qdq(ch.node(op, [a, b_bc], f"{op.lower()}{k}_bc"), f"{op.lower()}{k}_bc_y", y_scale)]
    soft = ch.node("Softmax", [qdq("input", "logits", 0.05)], "softmax", axis=-1)
    outputs.append(qdq(soft, "softmax_y", 1 / 256, np.uint8))
    graph = helper.make_graph(ch.nodes, f"calib_binary{index}",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4, m])],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 4, m]) for y in outputs],
                              ch.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def sequence_chain(index: int) -> onnx.ModelProto:
    """Calibration model `index` in float32 on SEQUENCE_STEPS[index] steps of four channels ([1, 4, m]) for the
    sequence kernels and the compile-time outputs: Swish, CausalConvWithState (SiLU, a past state), a causal
    Attention over the time steps (SEQUENCE_HEADS) and a one-head one, EyeLike of the [steps, 4] result added to it,
    and the input's Shape as a second graph output (a constant copied out)."""
    rng = np.random.default_rng(SEED + 16000 + index)
    m = SEQUENCE_STEPS[index]
    ch = _Chain(rng, [1, 4, m], [], [])
    x = ch.node("Swish", ["input"], "swish", alpha=1.2)
    conv = [x, ch._const("cc_w", 0.5 * rng.standard_normal((4, 1, 3))), ch._const("cc_b", rng.standard_normal(4)),
            ch._const("cc_state", rng.standard_normal((1, 4, 2)))]
    ch.nodes.append(helper.make_node("CausalConvWithState", conv, ["causal_conv", "causal_conv_state"],
                                     name="causal_conv", activation="silu"))
    steps = ch.node("Transpose", ["causal_conv"], "steps", perm=[0, 2, 1])
    heads = SEQUENCE_HEADS[index]
    x = ch.node("Attention", [steps, steps, steps], "attention", q_num_heads=heads, kv_num_heads=heads, is_causal=1)
    x = ch.node("Attention", [x, x, x], "attention_one_head", q_num_heads=1, kv_num_heads=1)
    x = ch.node("Reshape", [x, ch.ints("matrix_shape", [m, 4])], "matrix")
    y = ch.node("Add", [x, ch.node("EyeLike", [x], "eyelike")], "out")
    shape = ch.node("Shape", ["input"], "shape")
    graph = helper.make_graph(ch.nodes, f"calib_sequence{index}",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4, m])],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, [m, 4]),
                               helper.make_tensor_value_info(shape, TensorProto.INT64, [3])], ch.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 27)])
    model.ir_version = 11
    onnx.checker.check_model(model, full_check=True)
    return model


def _checked(ch: _Chain, name: str, in_shape: list[int], y: str, opset: int = 13) -> onnx.ModelProto:
    """The chain as a checked model (opset 13 unless given) with input 'input' and output y."""
    graph = helper.make_graph(ch.nodes, name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, in_shape)],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, ch.shape)], ch.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
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


def quantized(model: onnx.ModelProto, fmt: str, seed: int, uint8: bool = False) -> onnx.ModelProto:
    """The model quantized by onnxruntime's quantize_static (int8 activations, or uint8 when `uint8`; per-channel int8
    weights) in QDQ or QOperator form."""
    import logging

    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

    logging.getLogger().setLevel(logging.ERROR)  # quantize_static's pre-processing and x64 speed advice

    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "float.onnx", Path(tmp) / "int8.onnx"
        onnx.save(model, src)
        quantize_static(src, dst, _RandomReader(shape, seed),
                        quant_format=QuantFormat.QDQ if fmt == "qdq" else QuantFormat.QOperator, per_channel=True,
                        activation_type=QuantType.QUInt8 if uint8 else QuantType.QInt8, weight_type=QuantType.QInt8)
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
    """The quantized model with 8-bit graph input and output (int8, or uint8 for uint8 activations), as converted
    TFLite models have them: the input's QuantizeLinear and the output's DequantizeLinear removed (onnxruntime then
    fuses other groups)."""
    g = qmodel.graph
    zero_points = {t.name: t.data_type for t in g.initializer}
    q = next(n for n in g.node if n.op_type == "QuantizeLinear" and n.input[0] == g.input[0].name)
    dq = next(n for n in g.node if n.op_type == "DequantizeLinear" and n.output[0] == g.output[0].name)
    shapes = [[d.dim_value for d in v.type.tensor_type.shape.dim] for v in (g.input[0], g.output[0])]
    new_in, new_out = q.output[0], dq.input[0]
    g.node.remove(q)
    g.node.remove(dq)
    del g.input[:]
    del g.output[:]
    g.input.append(helper.make_tensor_value_info(new_in, zero_points.get(q.input[2], TensorProto.INT8), shapes[0]))
    g.output.append(helper.make_tensor_value_info(new_out, zero_points.get(dq.input[2], TensorProto.INT8),
                                                  shapes[1]))
    return qmodel


@cache
def calibration_models() -> tuple[tuple[str, onnx.ModelProto, dict], ...]:
    """(name, model, compile options) of every calibration model: each chain in every format, the options those
    compiled with a chosen requantization mode take (`requant`; empty: the board's default). Built once per process,
    for the fingerprint and the fit alike; the loader copies a model before it changes anything."""
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
        models += [(f"calib_dw{i}_float", dw_chain(i)),
                   (f"calib_dw{i}_qdq_int8io", with_int8_io(quantized(dw_chain(i), "qdq", SEED + 2000 + i)))]
    for i in range(len(FEW_CHAINS)):
        models.append((f"calib_few{i}_qdq_int8io", with_int8_io(quantized(few_chain(i), "qdq", SEED + 3000 + i))))
    for i in range(FC_CHAINS):  # QOperator has no QGemm: MatMul + Add
        models.append((f"calib_fc{i}_qop", quantized(fc_chain(i, matmul=True), "qop", SEED + 1000 + i)))
    for i, sizes in enumerate(WIDE_FC_SIZES):
        index = FC_CHAINS + i
        models += [(f"calib_fc{index}_qop", quantized(fc_chain(index, True, sizes), "qop", SEED + 1000 + index)),
                   (f"calib_fc{index}_qdq_int8io",
                    with_int8_io(quantized(fc_chain(index, False, sizes), "qdq", SEED + 1000 + index)))]
    models += [(f"calib_rnn{i}_float", rnn_chain(i)) for i in range(len(RNN_CHAINS))]
    models += [(f"calib_rnn{i}_runtime_float", rnn_chain(i, runtime_weights=True)) for i in RNN_RUNTIME_CHAINS]
    models += [(f"calib_matrix{i}_float", matrix_chain(i)) for i in range(len(MATRIX_CHAINS))]
    models += [(f"calib_conv1d{i}_float", conv1d_chain(i)) for i in range(len(CONV1D_CHAINS))]
    for i in range(len(DATA_CHAINS)):
        base = data_chain(i)
        models += [(f"calib_data{i}_float", base), (f"calib_data{i}_qdq", quantized(base, "qdq", SEED + 5000 + i))]
    models += [(f"calib_elementwise{i}_float", elementwise_chain(i)) for i in range(len(ELEMENTWISE_SIZES))]
    models += [(f"calib_misc{i}_float", misc_chain(i)) for i in range(len(ELEMENTWISE_SIZES))]
    models += [(f"calib_numeric{i}_float", numeric_chain(i)) for i in range(len(ELEMENTWISE_SIZES))]
    models += [(f"calib_mixed{i}_float", mixed_dtype_chain(i)) for i in range(len(ELEMENTWISE_SIZES))]
    models += [(f"calib_upsample{i}_qdq_int8io", with_int8_io(quantized(upsample_chain(i), "qdq", SEED + 8000 + i)))
               for i in range(len(UPSAMPLE_CHAINS))]
    models += [(f"calib_grouped{i}_qdq_u8", quantized(grouped_chain(i), "qdq", SEED + 12000 + i, uint8=True))
               for i in range(len(GROUPED_CHAINS))]
    # float too: a grouped conv that is not depthwise is the float conv's general path
    models += [(f"calib_grouped{i}_float", grouped_chain(i)) for i in range(len(GROUPED_CHAINS))]
    models += [(f"calib_deconv{i}_qdq_int8io", with_int8_io(quantized(deconv_chain(i), "qdq", SEED + 9000 + i)))
               for i in range(len(DECONV_CHAINS))]
    models += [(f"calib_grouped{i}_qdq_u8io",
                with_int8_io(quantized(grouped_chain(i), "qdq", SEED + 12000 + i, uint8=True)))
               for i in range(len(GROUPED_CHAINS))]
    models += [(f"calib_ring{i}_qdq_int8io", with_int8_io(quantized(ring_chain(i), "qdq", SEED + 13000 + i)))
               for i in range(len(RING_CHAINS))]
    models += [(f"calib_sequence{i}_float", sequence_chain(i)) for i in range(len(SEQUENCE_STEPS))]
    chosen = [(f"calib_avgpool{i}_qop_float", quantized(avgpool_chain(i), "qop", SEED + 14000 + i),
               {"requant": "float"}) for i in range(len(ELEMENTWISE_SIZES))]
    chosen += [(f"calib_binary{i}_qdq_{mode}", binary_qdq_chain(i), {"requant": mode})
               for i in range(len(ELEMENTWISE_SIZES)) for mode in REQUANT_MODES]
    return tuple((name, model, {}) for name, model in models) + tuple(chosen)
