"""One NPU region of the IR (int8 kernel nodes) → a TFLite flatbuffer that Vela and LiteRT both read.

Written with the TFLite schema classes that ship inside Vela (``ethosu.vela.tflite``) and the ``flatbuffers``
builder: version 3, identifier "TFL3", buffer 0 empty, NHWC tensors, per-channel symmetric int8 weights (zero
point 0) and int32 biases whose scale is input scale × weight scale.

Layouts. Inside a region every image is one NHWC TFLite tensor, whatever the IR stores: the layout pass's
channels-last tensors (layout "nhwc", the IR's stored shape is already N, H, W, C) cross the region's boundary as
they are; a channels-first one (layout "", C > 1 and H·W > 1) gets a TRANSPOSE at the boundary, so the region reads
and writes the bytes mcucomp's arena holds. The layout pass's own conversions between NPU layers (a transpose, or a
free reshape) are no-ops there. Concat axes and resize axes are the ONNX ones mapped to NHWC; a Flatten of a
channels-last image is a RESHAPE of the NHWC tensor, the order in which the layout pass permuted the fully connected
weights after it.

Rescale semantics (why the written scales are not the model's scales). TFLite, LiteRT and Vela derive each
layer's Q31 multiplier from the tensor scales in double precision, (double)in · (double)w[c] / (double)out,
while mcucomp's fixed mode quantizes the float32 product its lowering computed (Requant.scale, onnxruntime's
order of float32 operations). The two differ in the last bits, and so would the layer's integer results. So the
writer chooses the written scales to make TFLite's multiplier the one mcucomp uses:
- every activation tensor gets the power of two nearest its real scale;
- weight scale w[c] = Requant.scale[c] · out / in, exact in float32 (out / in is a power of two), so TFLite's
  double quotient is Requant.scale[c] exactly and QuantizeMultiplier returns the same mult and shift
  (round_trip_multipliers checks it for every layer written).
Zero points are the model's. The region's I/O scales are therefore powers of two: metadata only (the region
takes and returns int8 values, placed where mcucomp's arena holds them).

Clamps: Relu-style requant ranges [zp, 127] become a fused RELU (its quantized zero is zp exactly); any other
range than [-128, 127] becomes MAXIMUM/MINIMUM with a constant (raw int8 compares, no rescale).
A whole-window integer average pool ("global_int") is a DEPTHWISE_CONV_2D with all-one weights: the same
integer sum, requantized once, as mcucomp computes it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import flatbuffers
import numpy as np

from mcucomp.fixedpoint import quantize_multiplier
from mcucomp.ir import Graph, Node
from mcucomp.ops.fc_s8 import fc_requant

_TYPES = {"int8": 9, "int32": 2, "uint8": 3, "int16": 7}  # tflite TensorType


@dataclass
class _Tensor:
    name: str
    shape: tuple
    dtype: str
    scale: np.ndarray | None = None
    zero_point: np.ndarray | None = None
    axis: int = 0
    data: bytes | None = None


@dataclass
class _Op:
    code: int
    inputs: list
    outputs: list
    options_type: int = 0
    options: object = None  # callable(builder) -> offset


@dataclass
class RegionModel:
    """The region as TFLite tensors and operators before serialisation; `flatbuffer()` writes it."""

    tensors: list = field(default_factory=list)
    ops: list = field(default_factory=list)
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    index: dict = field(default_factory=dict)

    def add(self, t: _Tensor) -> int:
        """Add a tensor; return its index."""
        self.tensors.append(t)
        self.index[t.name] = len(self.tensors) - 1
        return self.index[t.name]

    def flatbuffer(self) -> bytes:
        """The TFLite model bytes."""
        return _serialise(self)


def tflite_shape(t) -> tuple:
    """The NHWC shape TFLite uses for an IR tensor inside a region (rank 4: N, H, W, C whether the IR stores it
    channels-last, layout "nhwc", or channels-first)."""
    if len(t.shape) == 4:
        n, c, h, w = t.onnx_shape
        return (n, h, w, c)
    return tuple(t.shape)


def needs_transpose(t) -> bool:
    """True for a rank-4 tensor stored NCHW whose bytes differ from NHWC's (C > 1 and H·W > 1): at a region's
    boundary it gets a TRANSPOSE, so the region reads and writes mcucomp's own layout."""
    if len(t.shape) != 4 or t.layout == "nhwc":
        return False
    _, c, h, w = t.onnx_shape
    return c > 1 and h * w > 1


def boundary_shape(t) -> tuple:
    """The shape of a region input or output as the region's TFLite subgraph sees it: the IR's stored shape when
    the tensor is transposed at the boundary, else the NHWC shape (same bytes)."""
    return tuple(t.shape) if needs_transpose(t) else tflite_shape(t)


def pow2_scale(scale: float) -> np.float32:
    """The power of two nearest (in log scale) to a positive scale: the written activation scale."""
    return np.float32(2.0 ** round(math.log2(float(scale))))


def tflite_multiplier(real: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplier of a double, as (Q31 mult, shift) in mcucomp.fixedpoint's convention."""
    if real <= 0.0:
        return 0, 0
    mant, exp = math.frexp(real)
    q = math.floor(mant * (1 << 31) + 0.5)  # TfLiteRound: half away from zero
    if q == 1 << 31:
        q, exp = q // 2, exp + 1
    if exp < -31:
        return 0, 0
    return int(q), -exp


class _Writer:
    """Builds a RegionModel from IR nodes, one emitter per kernel op."""

    def __init__(self, g: Graph):
        self.g = g
        self.m = RegionModel()

    # -- tensors -------------------------------------------------------------------------------------------
    def activation(self, name: str) -> int:
        """Index of an activation tensor (a writer-made one, or an IR tensor added on first use with its written,
        power-of-two, scale)."""
        if name in self.m.index:
            return self.m.index[name]
        t = self.g.tensors[name]
        q = t.quant
        zp = feature_map_zero_point(self.g, name)
        scale = pow2_scale(float(np.asarray(q.scale).reshape(-1)[0])) if q is not None else np.float32(1.0)
        return self.m.add(_Tensor(name, tflite_shape(t), t.dtype, np.array([scale], np.float32),
                                  np.array([zp], np.int64)))

    def scale_of(self, name: str) -> np.float32:
        """The written scale of an activation tensor."""
        return np.float32(self.m.tensors[self.activation(name)].scale[0])

    def const(self, name: str, data: np.ndarray, scale=None, zero_point=None, axis: int = 0) -> int:
        """Add a constant tensor (little-endian bytes)."""
        data = np.ascontiguousarray(data)
        base, k = name, 0
        while name in self.m.index:
            k += 1
            name = f"{base}_{k}"
        return self.m.add(_Tensor(name, tuple(data.shape), str(data.dtype),
                                  None if scale is None else np.asarray(scale, np.float32).reshape(-1),
                                  None if zero_point is None else np.asarray(zero_point, np.int64).reshape(-1),
                                  axis, data.astype(data.dtype.newbyteorder("<")).tobytes()))

    def intermediate(self, like: str, suffix: str) -> int:
        """A fresh activation tensor with the shape and written quantisation of `like`."""
        t = self.m.tensors[self.activation(like)]
        return self.m.add(_Tensor(f"{like}{suffix}", t.shape, t.dtype, t.scale, t.zero_point))

    def boundary(self, name: str, into_region: bool) -> int:
        """The subgraph I/O tensor of `name`: the NHWC tensor itself, or an NCHW one with a TRANSPOSE in between."""
        inner = self.activation(name)
        t = self.g.tensors[name]
        if not needs_transpose(t):
            return inner
        it = self.m.tensors[inner]
        outer = self.m.add(_Tensor(f"{name}/nchw", tuple(t.shape), it.dtype, it.scale, it.zero_point))
        perm = [0, 2, 3, 1] if into_region else [0, 3, 1, 2]  # output axis i reads input axis perm[i]
        p_idx = self.const(f"{name}/perm", np.array(perm, np.int32))
        src, dst = (outer, inner) if into_region else (inner, outer)
        self.m.ops.append(_Op(39, [src, p_idx], [dst]))  # TRANSPOSE
        return outer

    # -- shared pieces -------------------------------------------------------------------------------------
    def weight_scales(self, node: Node, x: str, y: str, n_out: int) -> np.ndarray:
        """Per-channel weight scales that make TFLite's multiplier equal mcucomp's (module docstring). A requant
        with a divisor (scale / div in double) writes its output scale as div: (in · scale / in) / div is then
        exactly mcucomp's quotient; the partition ends the region at such a layer, so no layer inside reads it."""
        rq = node.attrs["rq"]
        real = np.broadcast_to(np.asarray(rq.scale, np.float32).reshape(-1), (n_out,))
        if rq.div:
            self.written_output(y, np.float32(rq.div))
        ratio = float(self.scale_of(y)) / float(self.scale_of(x)) / (float(np.float32(rq.div)) if rq.div else 1.0)
        w = (real.astype(np.float64) * ratio).astype(np.float32)
        target = real.astype(np.float64) / (rq.div if rq.div else 1.0)
        round_trip_multipliers(node.name, target, float(self.scale_of(x)), w, float(self.scale_of(y)))
        return w

    def written_output(self, y: str, scale: np.float32) -> None:
        """Add activation `y` with this written scale (and its zero point) before anything else adds it."""
        if y in self.m.index:
            raise AssertionError(f"tensor {y} was written before the layer that sets its scale")
        t = self.g.tensors[y]
        self.m.add(_Tensor(y, tflite_shape(t), t.dtype, np.array([scale], np.float32),
                           np.array([feature_map_zero_point(self.g, y)], np.int64)))

    def bias(self, node: Node, bias_name: str | None, x: str, w_scale: np.ndarray) -> int:
        """The int32 bias (zeros when the node has none) with scale input × weight."""
        data = self.g.const(bias_name) if bias_name else None
        data = np.zeros(w_scale.size, np.int32) if data is None else np.asarray(data, np.int32).reshape(-1)
        scale = (np.float32(self.scale_of(x)) * w_scale).astype(np.float32)
        return self.const(f"{node.name}/bias", data, scale, np.zeros(w_scale.size), 0)

    def output(self, node: Node, y: str, code: int, inputs: list, options_type: int, options) -> None:
        """Emit the op writing `y`, with the node's requant clamp as a fused RELU or MAXIMUM/MINIMUM ops."""
        rq = node.attrs["rq"]
        lo, hi = int(rq.qmin), int(rq.qmax)
        y_idx = self.activation(y)
        relu = lo > -128 and lo == rq.zp and hi == 127
        clamps = []  # (MAXIMUM or MINIMUM opcode, bound)
        if not relu and lo > -128:
            clamps.append((55, lo))
        if hi < 127:
            clamps.append((57, hi))
        target = self.intermediate(y, "/unclamped") if clamps else y_idx
        self.m.ops.append(_Op(code, inputs, [target], options_type, options(1 if relu else 0)))
        for i, (clamp_code, bound) in enumerate(clamps):
            t = self.m.tensors[y_idx]
            c = self.const(f"{node.name}/clamp{i}", np.array([bound], np.int8), t.scale, t.zero_point)
            out = y_idx if i == len(clamps) - 1 else self.intermediate(y, f"/clamp{i}")
            self.m.ops.append(_Op(clamp_code, [target, c], [out]))
            target = out

    # -- emitters ------------------------------------------------------------------------------------------
    def conv2d_s8(self, node: Node) -> None:
        """CONV_2D or DEPTHWISE_CONV_2D (group == input channels), explicit pads as SAME or a PAD op."""
        a = node.attrs
        x, w_name = node.inputs[0], node.inputs[1]
        bias_name = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        y = node.outputs[0]
        wt = self.g.tensors[w_name]
        w = np.asarray(wt.data)  # constants keep ONNX order: OC, IC/group, KH, KW
        oc, icg, kh, kw = w.shape
        group = a.get("group", 1)
        ws = self.weight_scales(node, x, y, oc)
        x_idx, padding = self.padded_input(node, x)
        depthwise = group > 1
        if depthwise:
            w_t = w.reshape(oc, kh, kw).transpose(1, 2, 0)[None]  # 1, KH, KW, OC
            w_idx = self.const(w_name, w_t.astype(np.int8), ws, np.zeros(oc), 3)
        else:
            w_idx = self.const(w_name, w.transpose(0, 2, 3, 1).astype(np.int8), ws, np.zeros(oc), 0)
        b_idx = self.bias(node, bias_name, x, ws)
        (sh, sw), (dh, dw) = a["strides"], a["dilations"]
        mult = oc // group
        if depthwise:
            def opts(act):
                """The options table builder for fused activation `act`."""
                return lambda b: _options(b, "DepthwiseConv2DOptions", Padding=padding, StrideW=sw, StrideH=sh,
                                          DepthMultiplier=mult, FusedActivationFunction=act,
                                          DilationWFactor=dw, DilationHFactor=dh)
            self.output(node, y, 4, [x_idx, w_idx, b_idx], 2, opts)
        else:
            def opts(act):
                """The options table builder for fused activation `act`."""
                return lambda b: _options(b, "Conv2DOptions", Padding=padding, StrideW=sw, StrideH=sh,
                                          FusedActivationFunction=act, DilationWFactor=dw, DilationHFactor=dh)
            self.output(node, y, 3, [x_idx, w_idx, b_idx], 1, opts)

    def padded_input(self, node: Node, x: str) -> tuple[int, int]:
        """(input index, TFLite padding): VALID, SAME when the pads are TFLite's SAME, else a PAD op then VALID."""
        a = node.attrs
        pt, pl, pb, pr = a["pads"]
        x_idx = self.activation(x)
        if not any((pt, pl, pb, pr)):
            return x_idx, 1  # VALID
        _, h, w, _ = self.m.tensors[x_idx].shape
        (kh, kw), (sh, sw), (dh, dw) = a["kernel"], a["strides"], a["dilations"]
        if (pt, pb) == same_pads(h, kh, sh, dh) and (pl, pr) == same_pads(w, kw, sw, dw):
            return x_idx, 0  # SAME
        t = self.m.tensors[x_idx]
        n, _, _, c = t.shape
        padded = self.m.add(_Tensor(f"{x}/padded_for_{node.name}", (n, h + pt + pb, w + pl + pr, c), t.dtype,
                                    t.scale, t.zero_point))
        pads = self.const(f"{node.name}/pads", np.array([[0, 0], [pt, pb], [pl, pr], [0, 0]], np.int32))
        self.m.ops.append(_Op(34, [x_idx, pads], [padded]))  # PAD: pads with the input zero point
        return padded, 1

    def fc_s8(self, node: Node) -> None:
        """A fully connected layer, in the TFLite operator that rounds as the node's Requant does: LiteRT's int8
        FULLY_CONNECTED rounds once (64-bit MultiplyByQuantizedMultiplier), its CONV_2D twice (TFLite's
        SaturatingRoundingDoublingHighMul then RoundingDivideByPOT). 'single' → FULLY_CONNECTED on [rows, in];
        'double' → RESHAPE to [1, 1, rows, in], 1x1 CONV_2D, RESHAPE back."""
        x, w_name, y = node.inputs[0], node.inputs[1], node.outputs[0]
        bias_name = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        w = np.asarray(self.g.tensors[w_name].data)
        n_out, n_in = w.shape
        ws = self.weight_scales(node, x, y, n_out)
        x_idx = self.activation(x)
        y_idx = self.activation(y)
        b_idx = self.bias(node, bias_name, x, ws)
        if fc_requant(node.attrs["rq"]).rounding == "single":  # the rounding mcu_fc_s8 and its reference use
            w_idx = self.const(w_name, w.astype(np.int8), ws, np.zeros(n_out), 0)
            self.output(node, y, 9, [x_idx, w_idx, b_idx], 8,
                        lambda act: (lambda b: _options(b, "FullyConnectedOptions", FusedActivationFunction=act)))
            return
        rows = int(np.prod(self.m.tensors[x_idx].shape)) // n_in
        x4 = self.reshaped(x_idx, (1, 1, rows, n_in), f"{node.name}/in4")
        y4 = self.m.add(_Tensor(f"{y}/out4", (1, 1, rows, n_out), self.m.tensors[y_idx].dtype,
                                self.m.tensors[y_idx].scale, self.m.tensors[y_idx].zero_point))
        w_idx = self.const(w_name, w.reshape(n_out, 1, 1, n_in).astype(np.int8), ws, np.zeros(n_out), 0)

        def opts(act):
            """The options table builder for fused activation `act`."""
            return lambda b: _options(b, "Conv2DOptions", Padding=1, StrideW=1, StrideH=1,
                                      FusedActivationFunction=act, DilationWFactor=1, DilationHFactor=1)
        self.output(node, f"{y}/out4", 3, [x4, w_idx, b_idx], 1, opts)
        shape = self.m.tensors[y_idx].shape
        s_idx = self.const(f"{node.name}/out_shape", np.array(shape, np.int32))
        self.m.ops.append(_Op(22, [y4, s_idx], [y_idx], 17,
                              lambda b: _options(b, "ReshapeOptions", NewShape=list(shape))))

    def reshaped(self, src: int, shape: tuple, name: str) -> int:
        """A RESHAPE of tensor `src` to `shape` (same quantisation); returns the new tensor's index."""
        t = self.m.tensors[src]
        dst = self.m.add(_Tensor(name, shape, t.dtype, t.scale, t.zero_point))
        s_idx = self.const(f"{name}/shape", np.array(shape, np.int32))
        self.m.ops.append(_Op(22, [src, s_idx], [dst], 17,
                              lambda b: _options(b, "ReshapeOptions", NewShape=list(shape))))
        return dst

    def avgpool_s8(self, node: Node) -> None:
        """Whole-window integer average ("global_int") as DEPTHWISE_CONV_2D with all-one weights, VALID."""
        a = node.attrs
        x, y = node.inputs[0], node.outputs[0]
        c = tflite_shape(self.g.tensors[x])[3]
        kh, kw = a["kernel"]
        real = np.float32(a["x_scale"]) / np.float32(np.float32(a["y_scale"]) * np.float32(kh * kw))
        ratio = float(self.scale_of(y)) / float(self.scale_of(x))
        ws = np.full(c, np.float32(float(real) * ratio), np.float32)
        round_trip_multipliers(node.name, np.full(c, real), float(self.scale_of(x)), ws, float(self.scale_of(y)))
        w_idx = self.const(f"{node.name}/ones", np.ones((1, kh, kw, c), np.int8), ws, np.zeros(c), 3)
        b_idx = self.bias(node, None, x, ws)
        self.output_pool(node, y, [self.activation(x), w_idx, b_idx], (kh, kw), (1, 1))  # one window: stride unused

    def output_pool(self, node: Node, y: str, inputs: list, kernel: tuple, strides: tuple) -> None:
        """The depthwise op of a global integer average pool, clamped like a requant to [qmin, qmax]."""
        a = node.attrs
        rq = _Clamp(a["y_zp"], a["qmin"], a["qmax"])
        sh, sw = strides
        node_view = Node(node.name, node.op, node.inputs, node.outputs, {"rq": rq})
        self.output(node_view, y, 4, inputs, 2,
                    lambda act: (lambda b: _options(b, "DepthwiseConv2DOptions", Padding=1, StrideW=sw, StrideH=sh,
                                                    DepthMultiplier=1, FusedActivationFunction=act,
                                                    DilationWFactor=1, DilationHFactor=1)))

    def reshape(self, node: Node) -> None:
        """RESHAPE to the output's TFLite shape (only where NCHW and NHWC orders agree: see constraints)."""
        x, y = node.inputs[0], node.outputs[0]
        shape = tflite_shape(self.g.tensors[y])
        s_idx = self.const(f"{node.name}/shape", np.array(shape, np.int32))
        x_idx = self.activation(x)
        if y not in self.m.index:  # TFLite RESHAPE keeps the quantisation: write the input's
            xt = self.m.tensors[x_idx]
            self.m.add(_Tensor(y, shape, xt.dtype, xt.scale, xt.zero_point))
        y_idx = self.activation(y)
        self.m.ops.append(_Op(22, [x_idx, s_idx], [y_idx], 17,
                              lambda b: _options(b, "ReshapeOptions", NewShape=list(shape))))

    def transpose(self, node: Node) -> None:
        """A layout conversion (constraints.layout_conversion) writes no op: its input and output are one NHWC tensor
        in TFLite, so the output is the input's tensor (a channels-first side gets its TRANSPOSE at the boundary)."""
        self.m.index[node.outputs[0]] = self.activation(node.inputs[0])

    def maxpool_f32(self, node: Node) -> None:
        """MAX_POOL_2D of int8 data (raw compares), SAME or VALID padding."""
        a = node.attrs
        x, y = node.inputs[0], node.outputs[0]
        (kh, kw), (sh, sw) = a["kernel"], a["strides"]
        _, h, w, _ = tflite_shape(self.g.tensors[x])
        pt, pl, pb, pr = a["pads"]
        padding = 1 if not any((pt, pl, pb, pr)) else 0
        self.m.ops.append(_Op(17, [self.activation(x)], [self.activation(y)], 5,
                              lambda b: _options(b, "Pool2DOptions", Padding=padding, StrideW=sw, StrideH=sh,
                                                 FilterWidth=kw, FilterHeight=kh, FusedActivationFunction=0)))


    def concat(self, node: Node) -> None:
        """CONCATENATION along the NHWC axis of the ONNX axis; all inputs and the output share one quantisation
        (constraints), written as the first input's, so TFLite copies bytes as mcucomp does."""
        first = self.m.tensors[self.activation(node.inputs[0])]
        y = node.outputs[0]
        if y not in self.m.index:
            t = self.g.tensors[y]
            self.m.add(_Tensor(y, tflite_shape(t), t.dtype, first.scale, first.zero_point))
        inputs = []
        for name in node.inputs:
            idx = self.activation(name)
            it = self.m.tensors[idx]
            if not np.array_equal(it.scale, first.scale):  # same real scale, so same power of two: never taken
                raise AssertionError(f"concat {node.name}: inputs written with different scales")
            inputs.append(idx)
        axis = nhwc_axis(self.g.tensors[y], node.attrs["axis"])
        self.m.ops.append(_Op(2, inputs, [self.activation(y)], 10,
                              lambda b: _options(b, "ConcatenationOptions", Axis=axis, FusedActivationFunction=0)))

    def resize(self, node: Node) -> None:
        """RESIZE_NEAREST_NEIGHBOR with the flags whose source pixels are mcucomp's (resize_flags)."""
        x, y = node.inputs[0], node.outputs[0]
        align, half = resize_flags(node, self.g)
        _, h, w, _ = tflite_shape(self.g.tensors[y])
        size = self.const(f"{node.name}/size", np.array([h, w], np.int32))
        x_idx = self.activation(x)
        if y not in self.m.index:  # nearest resize copies codes: the output keeps the input's quantisation
            xt = self.m.tensors[x_idx]
            self.m.add(_Tensor(y, tflite_shape(self.g.tensors[y]), xt.dtype, xt.scale, xt.zero_point))
        self.m.ops.append(_Op(97, [x_idx, size], [self.activation(y)], 74,
                              lambda b: _options(b, "ResizeNearestNeighborOptions", AlignCorners=align,
                                                 HalfPixelCenters=half)))


def nhwc_axis(t, axis: int) -> int:
    """The TFLite (NHWC) axis of an ONNX-order axis of a rank-4 tensor; other ranks keep theirs."""
    rank = len(t.shape)
    axis %= rank
    return {0: 0, 1: 3, 2: 1, 3: 2}[axis] if rank == 4 else axis


def tflite_nearest(in_len: int, out_len: int, align: bool, half: bool) -> np.ndarray:
    """TFLite's RESIZE_NEAREST_NEIGHBOR source index of every output position of one axis (its float32
    arithmetic; TfLiteRound rounds half away from zero)."""
    f32 = np.float32
    scale = f32(in_len - 1) / f32(out_len - 1) if align and out_len > 1 else f32(in_len) / f32(out_len)
    x = (np.arange(out_len, dtype=f32) + f32(0.5 if half else 0.0)) * scale
    src = np.floor(x + f32(0.5)) if align else np.floor(x)
    return np.clip(src.astype(np.int64), 0, in_len - 1)


def resize_flags(node: Node, g: Graph) -> tuple[bool, bool] | None:
    """(align_corners, half_pixel_centers) making TFLite pick mcucomp's nearest source pixels on H and W (N and C
    not resized), or None when no flag combination does."""
    from mcucomp.ops._layout import is_nhwc, to_nchw_perm
    from mcucomp.ops.resize import axis_plan, axis_taps

    plan = axis_plan(node, g)  # in stored order: back to ONNX order (N, C, H, W) for a channels-last node
    plan = [plan[a] for a in to_nchw_perm(len(plan))] if is_nhwc(node) else plan
    if len(plan) != 4 or plan[0][4] or plan[1][4]:
        return None
    sources = []
    for in_len, out_len, scale, roi, resized in plan[2:]:
        if not resized:
            sources.append((in_len, out_len, np.arange(out_len)))
            continue
        src, _, extrapolated = axis_taps(node, in_len, out_len, scale, roi)
        if src.shape[1] != 1 or (extrapolated is not None and np.any(extrapolated)):
            return None
        sources.append((in_len, out_len, np.asarray(src)[:, 0]))
    for align, half in ((False, False), (False, True), (True, False), (True, True)):
        if all(np.array_equal(tflite_nearest(i, o, align, half), s) for i, o, s in sources):
            return align, half
    return None


@dataclass
class _Clamp:
    zp: int
    qmin: int
    qmax: int


def feature_map_zero_point(g: Graph, name: str) -> int | None:
    """The zero point of an int8 feature map: its quantization, else what the layers writing or reading it say
    (QOperator lowerings leave some tensors unquantized); None when nothing says."""
    q = g.tensors[name].quant
    if q is not None and q.per_tensor:
        return int(np.asarray(q.zero_point).reshape(-1)[0])
    for node in g.nodes:
        if name in node.outputs:
            if "rq" in node.attrs:
                return int(node.attrs["rq"].zp)
            if "y_zp" in node.attrs:
                return int(node.attrs["y_zp"])
            if node.op == "reshape":
                return feature_map_zero_point(g, node.inputs[0])
        if node.inputs and node.inputs[0] == name and "x_zp" in node.attrs:
            return int(node.attrs["x_zp"])
    return None


def same_pads(size: int, k: int, s: int, d: int) -> tuple[int, int]:
    """TFLite SAME padding (before, after) of one spatial dim."""
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


def round_trip_multipliers(layer: str, real: np.ndarray, in_scale: float, w_scale: np.ndarray,
                           out_scale: float) -> None:
    """Assert TFLite's multiplier from the written scales equals mcucomp's fixed-mode one (of `real`, the real
    multiplier per channel as mcucomp computes it), channel by channel."""
    for c, (r, w) in enumerate(zip(np.asarray(real, np.float64).reshape(-1), w_scale)):
        ours = quantize_multiplier(float(r))
        theirs = tflite_multiplier(float(np.float64(in_scale) * np.float64(w) / np.float64(out_scale)))
        if ours != theirs:
            raise AssertionError(f"layer {layer} channel {c}: TFLite multiplier {theirs} != mcucomp's {ours}")


def _options(builder, table: str, **fields) -> int:
    """Build a builtin-options table of ethosu.vela.tflite.<table> from keyword fields (lists → int32 vectors)."""
    import importlib

    mod = importlib.import_module(f"ethosu.vela.tflite.{table}")
    vectors = {}
    for key, value in fields.items():
        if isinstance(value, list):
            getattr(mod, f"{table}Start{key}Vector")(builder, len(value))
            for v in reversed(value):
                builder.PrependInt32(int(v))
            vectors[key] = builder.EndVector()
    getattr(mod, f"{table}Start")(builder)
    for key, value in fields.items():
        getattr(mod, f"{table}Add{key}")(builder, vectors.get(key, value))
    return getattr(mod, f"{table}End")(builder)


def _int_vector(builder, values, prepend: str) -> int:
    """A flatbuffer vector of ints, elements prepended in reverse."""
    builder.StartVector(8 if prepend == "PrependInt64" else 4, len(values), 8 if prepend == "PrependInt64" else 4)
    for v in reversed(list(values)):
        getattr(builder, prepend)(int(v))
    return builder.EndVector()


def _float_vector(builder, values) -> int:
    """A flatbuffer vector of float32."""
    builder.StartVector(4, len(values), 4)
    for v in reversed(list(values)):
        builder.PrependFloat32(float(v))
    return builder.EndVector()


def _serialise(m: RegionModel) -> bytes:
    """Write the flatbuffer (schema version 3, identifier TFL3)."""
    from ethosu.vela.tflite import (Buffer, Model, Operator, OperatorCode, QuantizationParameters, SubGraph,
                                    Tensor)

    b = flatbuffers.Builder(1 << 16)
    buffers = [None]  # buffer 0: empty
    tensor_offsets = []
    for t in m.tensors:
        name = b.CreateString(t.name)
        shape = _int_vector(b, t.shape, "PrependInt32")
        quant = None
        if t.scale is not None:
            scale = _float_vector(b, t.scale)
            zp = _int_vector(b, t.zero_point, "PrependInt64")
            QuantizationParameters.QuantizationParametersStart(b)
            QuantizationParameters.QuantizationParametersAddScale(b, scale)
            QuantizationParameters.QuantizationParametersAddZeroPoint(b, zp)
            QuantizationParameters.QuantizationParametersAddQuantizedDimension(b, t.axis)
            quant = QuantizationParameters.QuantizationParametersEnd(b)
        buffer_index = 0
        if t.data is not None:
            buffers.append(t.data)
            buffer_index = len(buffers) - 1
        Tensor.TensorStart(b)
        Tensor.TensorAddShape(b, shape)
        Tensor.TensorAddType(b, _TYPES[t.dtype])
        Tensor.TensorAddBuffer(b, buffer_index)
        Tensor.TensorAddName(b, name)
        if quant is not None:
            Tensor.TensorAddQuantization(b, quant)
        tensor_offsets.append(Tensor.TensorEnd(b))

    codes = sorted({op.code for op in m.ops})
    op_offsets = []
    for op in m.ops:
        options = op.options(b) if op.options is not None else None
        ins = _int_vector(b, op.inputs, "PrependInt32")
        outs = _int_vector(b, op.outputs, "PrependInt32")
        Operator.OperatorStart(b)
        Operator.OperatorAddOpcodeIndex(b, codes.index(op.code))
        Operator.OperatorAddInputs(b, ins)
        Operator.OperatorAddOutputs(b, outs)
        if options is not None:
            Operator.OperatorAddBuiltinOptionsType(b, op.options_type)
            Operator.OperatorAddBuiltinOptions(b, options)
        op_offsets.append(Operator.OperatorEnd(b))

    def table_vector(offsets):
        """A vector of table offsets."""
        b.StartVector(4, len(offsets), 4)
        for o in reversed(offsets):
            b.PrependUOffsetTRelative(o)
        return b.EndVector()

    tensors = table_vector(tensor_offsets)
    operators = table_vector(op_offsets)
    sg_in = _int_vector(b, m.inputs, "PrependInt32")
    sg_out = _int_vector(b, m.outputs, "PrependInt32")
    sg_name = b.CreateString("npu_region")
    SubGraph.SubGraphStart(b)
    SubGraph.SubGraphAddTensors(b, tensors)
    SubGraph.SubGraphAddInputs(b, sg_in)
    SubGraph.SubGraphAddOutputs(b, sg_out)
    SubGraph.SubGraphAddOperators(b, operators)
    SubGraph.SubGraphAddName(b, sg_name)
    subgraph = SubGraph.SubGraphEnd(b)

    code_offsets = []
    for code in codes:
        OperatorCode.OperatorCodeStart(b)
        OperatorCode.OperatorCodeAddDeprecatedBuiltinCode(b, min(code, 127))
        OperatorCode.OperatorCodeAddBuiltinCode(b, code)
        OperatorCode.OperatorCodeAddVersion(b, 1)
        code_offsets.append(OperatorCode.OperatorCodeEnd(b))

    buffer_offsets = []
    for data in buffers:
        vec = None
        if data:
            b.StartVector(1, len(data), 16)
            b.head = b.head - len(data)
            b.Bytes[b.head:b.head + len(data)] = data
            vec = b.EndVector()
        Buffer.BufferStart(b)
        if vec is not None:
            Buffer.BufferAddData(b, vec)
        buffer_offsets.append(Buffer.BufferEnd(b))

    codes_vec = table_vector(code_offsets)
    subgraphs_vec = table_vector([subgraph])
    buffers_vec = table_vector(buffer_offsets)
    description = b.CreateString("mcucomp NPU region")
    Model.ModelStart(b)
    Model.ModelAddVersion(b, 3)
    Model.ModelAddOperatorCodes(b, codes_vec)
    Model.ModelAddSubgraphs(b, subgraphs_vec)
    Model.ModelAddDescription(b, description)
    Model.ModelAddBuffers(b, buffers_vec)
    b.Finish(Model.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


EMITTERS = ("conv2d_s8", "fc_s8", "avgpool_s8", "reshape", "maxpool_f32", "concat", "resize", "transpose")


def region_model(g: Graph, nodes: list[Node], inputs: list[str], outputs: list[str]) -> RegionModel:
    """The RegionModel of `nodes` (in execution order) with the given region inputs and outputs; I/O tensors keep
    the IR's stored layout (TRANSPOSE at the boundary where NCHW and NHWC bytes differ)."""
    w = _Writer(g)
    for name in inputs:
        w.m.inputs.append(w.boundary(name, into_region=True))
    for node in nodes:
        getattr(w, node.op)(node)
    for name in outputs:
        w.m.outputs.append(w.boundary(name, into_region=False))
    return w.m


def write_region(g: Graph, nodes: list[Node], inputs: list[str], outputs: list[str]) -> bytes:
    """The TFLite flatbuffer of one NPU region: `nodes` (execution order), subgraph I/O in the given order."""
    return region_model(g, nodes, inputs, outputs).flatbuffer()
