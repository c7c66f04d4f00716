"""Lower QDQ groups (DequantizeLinear → op → [Relu/Clip] → QuantizeLinear) into int8 kernel ops.

Every group gets integer semantics, whatever onnxruntime would fuse on x86: Conv, Gemm and MatMul become conv2d_s8
and fc_s8 (int8 weights, int32 bias, int32 accumulator, one requantization in the `requant` mode), Add becomes
add_s8 in QLinearAdd's arithmetic, whole-window average pools sum in integers, Softmax uses QLinearSoftmax's table,
and a following Relu/Clip becomes a clamp of the quantized output. The package's integer reference
(mcucomp/intref/) defines each kernel's result.
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node, Tensor
from ..ops._lut import code_table, identity, leaky_relu, mlas_logistic, quantize_linear
from ..ops._tflite_lut import tflite_table
from ..ops._window import canonical_hw, set_window
from ..ops.add_s8 import lowered_mode
from ..ops.avgpool_s8 import pool_kernel
from ..ops.conv_transpose_f32 import begin_end_pads
from ..ops.base import shape
from ..quant import QRANGE, Requant, combined_scale, scalar
from .qutil import dq_source, int8_weights, out_range, q_sink, set_quant, single_consumer, to_int8_domain

ACTIVATIONS = ("Relu", "Clip")


class _Group:
    """A matched QDQ group: the float node, its quantized inputs, optional activation, and the output Q."""

    def __init__(self, g: Graph, node: Node, mode: str):
        self.g, self.node, self.mode = g, node, mode
        self.act: Node | None = None
        out = node.outputs[0]
        nxt = single_consumer(g, out)
        if nxt is not None and nxt.op in ACTIVATIONS:
            self.act, out = nxt, nxt.outputs[0]
        self.sink = q_sink(g, out)

    def clamp(self, y_zp: int, y_scale: float, lo: int, hi: int) -> tuple[int, int]:
        """The output range after the activation: Relu and Clip become a clamp of the quantized result."""
        if self.act is None:
            return lo, hi
        if self.act.op == "Relu":
            return max(lo, y_zp), hi
        cmin = self.g.const(self.act.inputs[1]) if len(self.act.inputs) > 1 and self.act.inputs[1] else None
        cmax = self.g.const(self.act.inputs[2]) if len(self.act.inputs) > 2 and self.act.inputs[2] else None
        # the bound's code: v / y_scale in float32, rounded half to even (QuantizeLinear), or half away from zero in
        # fixed mode (TFLite's CalculateActivationRangeQuantized)
        rnd = (lambda v: np.sign(v) * np.floor(np.abs(np.float64(v)) + 0.5)) if self.mode == "fixed" else np.rint
        qlo = lo if cmin is None else max(lo, int(rnd(np.float32(cmin) / np.float32(y_scale))) + y_zp)
        qhi = hi if cmax is None else min(hi, int(rnd(np.float32(cmax) / np.float32(y_scale))) + y_zp)
        return qlo, qhi

    def finish(self, op: str, inputs: list[str], attrs: dict) -> None:
        """Turn the float node into the kernel op writing the Q's output; drop the activation and the Q."""
        y, yq, qnode = self.sink
        set_quant(self.g, y, yq)
        self.node.op, self.node.inputs, self.node.outputs, self.node.attrs = op, inputs, [y], attrs
        for dead in (self.act, qnode):
            if dead is not None:
                self.g.nodes.remove(dead)


def _per_tensor_dq(g: Graph, name: str):
    """(quantized input, scale, zp) when `name` comes from a per-tensor DequantizeLinear of an 8-bit tensor."""
    src = dq_source(g, name)
    if src is None or not src[1].per_tensor or g.tensors[src[0]].dtype not in QRANGE:
        return None
    return src[0], float(scalar(src[1].scale)), int(scalar(src[1].zero_point))


def _weight_zp(q, c_out: int) -> np.ndarray | None:
    """Per-output-channel weight zero points, or None when all are zero."""
    zp = np.asarray(q.zero_point, np.int32).reshape(-1)
    return np.broadcast_to(zp, (c_out,)).astype(np.int32).copy() if zp.any() else None


def _lower_conv(grp: _Group, mode: str) -> None:
    """DQ(x), DQ(w const 8-bit), [DQ(b const int32)] → Conv → Q: conv2d_s8."""
    g, node = grp.g, grp.node
    x = _per_tensor_dq(g, node.inputs[0])
    w = dq_source(g, node.inputs[1])
    b = dq_source(g, node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    if x is None or w is None or g.const(w[0]) is None or g.tensors[w[0]].dtype not in QRANGE:
        return
    if b is not None and (g.const(b[0]) is None or g.tensors[b[0]].dtype != "int32"):
        return
    y, yq, _ = grp.sink
    y_scale, y_zp = float(scalar(yq.scale)), int(scalar(yq.zero_point))
    lo, hi = out_range(g, y)
    lo, hi = grp.clamp(y_zp, y_scale, lo, hi)
    w_data = g.const(w[0])
    c_out = w_data.shape[0]
    kernel = list(w_data.shape[2:]) if w_data.ndim == 4 else [1, w_data.shape[2]]
    canonical_hw(node, g, kernel)
    window = {k: node.attrs[k] for k in ("kernel", "strides", "dilations", "pads")}
    window["group"] = node.attrs.get("group", 1)
    set_quant(g, x[0], dq_source(g, node.inputs[0])[1])
    rq = Requant(combined_scale(x[1], w[1].scale, y_scale), y_zp, lo, hi, mode)
    w_name, w_zp = int8_weights(g, w[0], _weight_zp(w[1], c_out))
    grp.finish("conv2d_s8", [x[0], w_name, b[0] if b else ""], {**window, "x_zp": x[2], "w_zp": w_zp, "rq": rq})


def _lower_conv_transpose(grp: _Group, mode: str) -> None:
    """DQ(x), DQ(w const 8-bit, per tensor or per output channel: axis 1), [DQ(b const int32)] → ConvTranspose (1-D,
    2-D) → [Relu/Clip] → Q: conv_transpose_s8."""
    g, node = grp.g, grp.node
    x = _per_tensor_dq(g, node.inputs[0])
    w = dq_source(g, node.inputs[1])
    b = dq_source(g, node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    if x is None or w is None or g.const(w[0]) is None or g.tensors[w[0]].dtype not in QRANGE \
            or len(shape(g, node.inputs[0])) not in (3, 4) or not (w[1].per_tensor or w[1].axis == 1):
        return
    if b is not None and (g.const(b[0]) is None or g.tensors[b[0]].dtype != "int32"):
        return
    w_data = g.const(w[0])
    group = node.attrs.get("group", 1)
    c_out = w_data.shape[1] * group
    # per-channel parameters run along axis 1 (the output channels of one group): repeat them for every group
    w_scale = np.asarray(w[1].scale, np.float32).reshape(-1)
    w_scale = w_scale if w_scale.size == 1 else np.tile(w_scale, group)
    zp = np.asarray(w[1].zero_point, np.int32).reshape(-1)
    w_zp = None if not zp.any() else np.broadcast_to(zp if zp.size == 1 else np.tile(zp, group), (c_out,)).copy()
    rank = len(shape(g, node.inputs[0])) - 2
    kernel = list(node.attrs.get("kernel_shape") or w_data.shape[2:])
    strides = list(node.attrs.get("strides") or [1] * rank)
    dil = list(node.attrs.get("dilations") or [1] * rank)
    set_window(node, kernel, strides, dil, begin_end_pads(node, g, kernel, strides, dil))
    y, yq, _ = grp.sink
    y_scale, y_zp = float(scalar(yq.scale)), int(scalar(yq.zero_point))
    lo, hi = grp.clamp(y_zp, y_scale, *out_range(g, y))
    set_quant(g, x[0], dq_source(g, node.inputs[0])[1])
    if w_data.dtype == np.uint8:
        w_name = g.add_const(f"{w[0]}_s8", (w_data.astype(np.int16) - 128).astype(np.int8))
        w_zp = (np.zeros(c_out, np.int32) if w_zp is None else w_zp) - 128
    else:
        w_name = w[0]
    window = {k: node.attrs[k] for k in ("kernel", "strides", "dilations", "pads")}
    grp.finish("conv_transpose_s8", [x[0], w_name, b[0] if b else ""],
               {**window, "group": group, "x_zp": x[2], "w_zp": w_zp,
                "rq": Requant(combined_scale(x[1], w_scale, y_scale), y_zp, lo, hi, mode)})


def _lower_gemm(grp: _Group, mode: str) -> None:
    """DQ(A), DQ(B const 8-bit), [DQ(C const int32)] → Gemm(alpha 1, beta 1, no transA) → [Relu/Clip] → Q: fc_s8."""
    g, node = grp.g, grp.node
    a = _per_tensor_dq(g, node.inputs[0])
    w = dq_source(g, node.inputs[1])
    c = dq_source(g, node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    attrs = node.attrs
    if a is None or w is None or g.const(w[0]) is None or g.tensors[w[0]].dtype not in QRANGE or attrs.get("transA", 0):
        return
    if attrs.get("alpha", 1.0) != 1.0 or attrs.get("beta", 1.0) != 1.0 or len(shape(g, node.inputs[0])) != 2:
        return
    w_data = g.const(w[0]) if attrs.get("transB", 0) else np.ascontiguousarray(g.const(w[0]).T)
    n_out = w_data.shape[0]
    if c is not None and (g.const(c[0]) is None or g.tensors[c[0]].dtype != "int32"
                          or g.const(c[0]).size not in (1, n_out)):
        return
    y, yq, _ = grp.sink
    y_scale, y_zp = float(scalar(yq.scale)), int(scalar(yq.zero_point))
    lo, hi = out_range(g, y)
    lo, hi = grp.clamp(y_zp, y_scale, lo, hi)
    w_name, w_zp = int8_weights(g, w[0] if attrs.get("transB", 0) else g.add_const(f"{w[0]}_t", w_data),
                                _weight_zp(w[1], n_out))
    bias = ""
    if c is not None:
        bias = g.add_const(f"{c[0]}_b", np.broadcast_to(g.const(c[0]).reshape(-1), (n_out,)).astype(np.int32))
    grp.finish("fc_s8", [a[0], w_name, bias],
               {"x_zp": a[2], "w_zp": w_zp, "rq": Requant(combined_scale(a[1], w[1].scale, y_scale), y_zp, lo, hi,
                                                          mode)})


def _lower_matmul(grp: _Group, mode: str) -> None:
    """DQ(A), DQ(B const 2-D, per tensor or per column) → MatMul → [Relu/Clip] → Q: fc_s8."""
    g, node = grp.g, grp.node
    a = _per_tensor_dq(g, node.inputs[0])
    w = dq_source(g, node.inputs[1])
    if a is None or w is None or g.const(w[0]) is None or g.tensors[w[0]].dtype not in QRANGE:
        return
    w_data = g.const(w[0])
    if w_data.ndim != 2 or not (w[1].per_tensor or w[1].axis in (1, -1)):
        return
    y, yq, _ = grp.sink
    y_scale, y_zp = float(scalar(yq.scale)), int(scalar(yq.zero_point))
    lo, hi = out_range(g, y)
    lo, hi = grp.clamp(y_zp, y_scale, lo, hi)
    w_name, w_zp = int8_weights(g, g.add_const(f"{w[0]}_t", np.ascontiguousarray(w_data.T)),
                                _weight_zp(w[1], w_data.shape[1]))
    grp.finish("fc_s8", [a[0], w_name, ""],
               {"x_zp": a[2], "w_zp": w_zp,
                "rq": Requant(combined_scale(a[1], w[1].scale, y_scale), y_zp, lo, hi, mode)})


def _lower_avgpool(grp: _Group, mode: str) -> None:
    """DQ → AveragePool/GlobalAveragePool → Q: an integer window sum with one requantization per output (by the
    scale of the window's divisor count for windows smaller than the image)."""
    g, node = grp.g, grp.node
    x = _per_tensor_dq(g, node.inputs[0])
    if x is None or len(shape(g, node.inputs[0])) not in (3, 4):
        return
    y, yq, _ = grp.sink
    y_scale, y_zp = float(scalar(yq.scale)), int(scalar(yq.zero_point))
    lo, hi = out_range(g, y)
    lo, hi = grp.clamp(y_zp, y_scale, lo, hi)
    in_hw = list(shape(g, node.inputs[0])[2:]) if len(shape(g, node.inputs[0])) == 4 else [1, shape(g, node.inputs[0])[2]]
    if node.op == "GlobalAveragePool":
        node.attrs = {"kernel_shape": in_hw if len(shape(g, node.inputs[0])) == 4 else in_hw[1:]}
    kernel = list(node.attrs["kernel_shape"]) if len(node.attrs["kernel_shape"]) == 2 else [1, node.attrs["kernel_shape"][0]]
    canonical_hw(node, g, kernel)
    whole = kernel == in_hw and node.attrs["pads"] == [0, 0, 0, 0]
    attrs = {k: node.attrs[k] for k in ("kernel", "strides", "dilations", "pads")}
    # count_include_pad: divide by the kernel size, as QLinearAveragePool does (onnxruntime's float AveragePool
    # divides a ceil_mode window hanging past the pads by the taps inside the padded input instead)
    count = "kernel" if node.attrs.get("count_include_pad", 0) else "valid"
    attrs.update(count=count, x_scale=x[1], x_zp=x[2], y_scale=y_scale,
                 y_zp=y_zp, qmin=lo, qmax=hi, requant=mode,
                 mode="global_int" if whole else "window_int")
    kernel, kernel_attrs = pool_kernel(attrs, g.tensors[x[0]].dtype, mode)  # one-pixel images: a lut8
    grp.finish(kernel, [x[0]], kernel_attrs)


def _lower_binary(grp: _Group, mode: str, kernel: str, extra: dict) -> None:
    """DQ(a), DQ(b) → Add/Mul → [Relu/Clip] → Q with per-tensor a and b: `kernel` in the QLinear op's arithmetic
    (TFLite's ADD/MUL with --requant fixed); `extra` holds the kernel's own attrs."""
    g, node = grp.g, grp.node
    a = _per_tensor_dq(g, node.inputs[0])
    b = _per_tensor_dq(g, node.inputs[1])
    if a is None or b is None:
        return
    y, yq, _ = grp.sink
    y_scale, y_zp = float(scalar(yq.scale)), int(scalar(yq.zero_point))
    lo, hi = grp.clamp(y_zp, y_scale, *out_range(g, y))
    arith = lowered_mode(mode, a[1], b[1], y_scale) if kernel == "add_s8" else \
        "fixed" if mode == "fixed" else "qlinear"
    grp.finish(kernel, [a[0], b[0]], {"mode": arith, "a_scale": a[1],
                                      "a_zp": a[2], "b_scale": b[1], "b_zp": b[2], "y_scale": y_scale, "y_zp": y_zp,
                                      "qmin": lo, "qmax": hi, **extra})


def _lower_add(grp: _Group, mode: str) -> None:
    """DQ(a), DQ(b) → Add → [Relu] → Q: add_s8."""
    _lower_binary(grp, mode, "add_s8", {"offsets": (0, 0, 0)})


def _lower_mul(grp: _Group, mode: str) -> None:
    """DQ(a), DQ(b) → Mul → [Relu/Clip] → Q: mul_s8."""
    _lower_binary(grp, mode, "mul_s8", {"y_off": 0})


def _lower_softmax(grp: _Group, mode: str) -> None:
    """DQ → Softmax → Q: QLinearSoftmax's lookup table when input and output share a type, else the float
    sequence (dequantize, softmax, quantize)."""
    g, node = grp.g, grp.node
    x = _per_tensor_dq(g, node.inputs[0])
    if x is None or grp.act is not None:
        return
    y, yq, _ = grp.sink
    lo, hi = out_range(g, y)
    rank = len(shape(g, node.inputs[0]))
    axis = node.attrs.get("axis", -1) % rank
    grp.finish("softmax_s8", [x[0]], {"axis": axis, "x_scale": x[1], "x_zp": x[2],
                                      "y_scale": float(scalar(yq.scale)), "y_zp": int(scalar(yq.zero_point)),
                                      "qmin": lo, "qmax": hi, "mode": "qlinear" if g.tensors[x[0]].dtype == g.tensors[y].dtype else "float",
                                      "ort_u8": g.tensors[y].dtype == "uint8"})


def _lower_reshape(grp: _Group, mode: str) -> None:
    """DQ → Reshape-like → Q with identical quantization: the op runs on the int8 data (Q/DQ dropped)."""
    g, node = grp.g, grp.node
    src = dq_source(g, node.inputs[0])
    if src is None or grp.act is not None or not src[1].same_as(grp.sink[1]):
        return
    y, yq, qnode = grp.sink
    set_quant(g, y, yq)
    node.inputs = [src[0]] + node.inputs[1:]
    node.outputs = [y]
    g.tensors[y].dtype = g.tensors[src[0]].dtype
    g.nodes.remove(qnode)


def _requantize_codes(g: Graph, before: Node, x: str, x_q, y_q, name: str) -> str:
    """`x` (codes of x_q) as codes of y_q: x itself when the parameters are equal, else the output of a new lut8
    (the exact requantization of every code) inserted before `before`."""
    if x_q.same_as(y_q):
        return x
    out = name
    while out in g.tensors:
        out += "_"
    g.tensors[out] = Tensor(out, g.tensors[x].shape, g.tensors[x].dtype, y_q)
    g.nodes.insert(g.nodes.index(before), Node(f"{out}_lut8", "lut8", [x], [out],
                                               _table_attrs(g, x, x_q, out, y_q, identity)))
    return out


def _table_attrs(g: Graph, x: str, x_q, y: str, y_q, fn) -> dict:
    """lut8 attrs for y = quantize(fn(dequantize(x))) over every code of x's type."""
    table = code_table(float(scalar(x_q.scale)), int(scalar(x_q.zero_point)), g.tensors[x].dtype,
                       float(scalar(y_q.scale)), int(scalar(y_q.zero_point)), g.tensors[y].dtype, fn)
    return {"table": table, "x_lo": QRANGE[g.tensors[x].dtype][0], "y_shift": 0}


def _pad_value_as_code(g: Graph, node: Node, codes: str, q) -> None:
    """A constant-mode Pad of codes pads with the code of its value (the zero point for the default 0), quantized
    with the input's parameters as onnxruntime's QuantizeLinear would (float32 division, half to even, saturated)."""
    value_name = node.inputs[2] if len(node.inputs) > 2 else ""
    value = 0.0 if not value_name else float(np.asarray(g.const(value_name)).reshape(-1)[0])
    lo, hi = QRANGE[g.tensors[codes].dtype]
    code = quantize_linear(np.float32(value), float(scalar(q.scale)), int(scalar(q.zero_point)),
                           g.tensors[codes].dtype)
    const = g.add_const(f"{node.name}_pad_code", np.array(np.clip(code, lo, hi), g.tensors[codes].dtype))
    node.inputs = (node.inputs + [""] * 3)[:2] + [const] + node.inputs[3:]


def _lower_data_movement(grp: _Group, mode: str) -> str | None:
    """DQ → MaxPool / Resize / Transpose / DepthToSpace / SpaceToDepth / Slice / Gather / Expand / Tile / Pad → Q: the
    op moves int8 codes (these ops commute with a monotonic requantization; a constant Pad pads with its value's
    code), then a lut8 requantizes when the output's parameters differ; a linear Resize (integer weights) only with
    equal input and output parameters."""
    g, node = grp.g, grp.node
    src = dq_source(g, node.inputs[0])
    if src is None or grp.act is not None or not src[1].per_tensor or g.tensors[src[0]].dtype not in QRANGE:
        return
    if node.op == "Resize":
        rmode = node.attrs.get("mode", "nearest")
        rmode = rmode.decode() if isinstance(rmode, bytes) else rmode
        if rmode not in ("nearest", "linear"):
            return f"a {rmode} Resize has no integer form in mcucomp (nearest and linear Resize do)"
        if rmode == "linear" and not src[1].same_as(grp.sink[1]):
            return ("a linear Resize runs on int8 codes only when its input and output quantization are equal "
                    "(requantizing after the interpolation would round twice)")
    if node.op == "MaxPool" and len(node.outputs) > 1 and node.outputs[1]:
        return
    if node.op == "Pad":
        _pad_value_as_code(g, node, src[0], src[1])
    node.inputs = [src[0]] + node.inputs[1:]
    node.outputs = [_codes_into(g, src[0], src[1], grp.sink)]


def _codes_into(g: Graph, x: str, x_q, sink) -> str:
    """The tensor a data-movement op writes x's codes to for the QuantizeLinear `sink` (output, Quant, Q node):
    the Q's output when the parameters are equal (the Q is dropped), else a new tensor of x's parameters that the
    Q, turned into a lut8, requantizes."""
    y, yq, qnode = sink
    set_quant(g, y, yq)
    if x_q.same_as(yq):
        g.nodes.remove(qnode)
        g.tensors[y].dtype = g.tensors[x].dtype
        return y
    codes = f"{y}_codes"
    while codes in g.tensors:
        codes += "_"
    g.tensors[codes] = Tensor(codes, g.tensors[y].shape, g.tensors[x].dtype, x_q)
    qnode.op, qnode.inputs, qnode.attrs = "lut8", [codes], _table_attrs(g, codes, x_q, y, yq, identity)
    return codes


def _lower_split(grp: _Group, mode: str) -> str | None:
    """DQ → Split → Q on every output: the split moves int8 codes; an output whose parameters differ from the
    input's is requantized by a lut8."""
    g, node = grp.g, grp.node
    src = dq_source(g, node.inputs[0])
    if src is None or grp.act is not None or not src[1].per_tensor or g.tensors[src[0]].dtype not in QRANGE:
        return None
    sinks = [q_sink(g, y) if y else None for y in node.outputs]
    if any(s is None for s in sinks):
        return ("an output of the Split does not go to exactly one QuantizeLinear with constant per-tensor "
                "parameters, so the split cannot move int8 codes")
    node.inputs = [src[0]] + node.inputs[1:]
    node.outputs = [_codes_into(g, src[0], src[1], sink) for sink in sinks]
    return None


def _lower_concat(grp: _Group, mode: str) -> None:
    """DQ(x0), DQ(x1), ... → Concat → Q: each input whose parameters differ from the output's requantized by a lut8,
    then a Concat of the codes."""
    g, node = grp.g, grp.node
    srcs = [dq_source(g, i) for i in node.inputs]
    y, yq, qnode = grp.sink
    if grp.act is not None or any(s is None or not s[1].per_tensor or g.tensors[s[0]].dtype != g.tensors[y].dtype
                                  for s in srcs):
        return
    set_quant(g, y, yq)
    node.inputs = [_requantize_codes(g, node, s[0], s[1], yq, f"{s[0]}_as_{y}") for s in srcs]
    node.outputs = [y]
    g.nodes.remove(qnode)


def _hard_swish(v: np.ndarray) -> np.ndarray:
    """ONNX HardSwish: v · max(0, min(1, v / 6 + 0.5)), in float32."""
    v = np.asarray(v, np.float32)
    return (v * np.clip(v * np.float32(1 / 6) + np.float32(0.5), 0, 1)).astype(np.float32)


def _table_function(g: Graph, node: Node):
    """The float function of an elementwise op a lut8 can tabulate, or None."""
    a = node.attrs
    if node.op == "Sigmoid":
        return mlas_logistic
    if node.op == "Tanh":
        return lambda v: np.tanh(np.asarray(v, np.float32)).astype(np.float32)
    if node.op == "HardSwish":
        return _hard_swish
    if node.op == "HardSigmoid":
        alpha, beta = np.float32(a.get("alpha", 0.2)), np.float32(a.get("beta", 0.5))
        return lambda v: np.clip(np.asarray(v, np.float32) * alpha + beta, 0, 1).astype(np.float32)
    if node.op == "LeakyRelu":
        return leaky_relu(a.get("alpha", 0.01))
    if node.op == "Relu":
        return lambda v: np.maximum(np.asarray(v, np.float32), np.float32(0))
    if node.op == "Clip":
        bounds = [g.const(i) if i else None for i in (node.inputs + ["", ""])[1:3]]
        if any(b is None for b, i in zip(bounds, (node.inputs + ["", ""])[1:3]) if i):
            return None
        lo = -np.inf if bounds[0] is None else np.float32(bounds[0])
        hi = np.inf if bounds[1] is None else np.float32(bounds[1])
        return lambda v: np.clip(np.asarray(v, np.float32), lo, hi).astype(np.float32)
    return None


def _q_triple(g: Graph, name: str, q) -> tuple[float, int, str]:
    """(scale, zero point, dtype) of a per-tensor quantized tensor."""
    return float(scalar(q.scale)), int(scalar(q.zero_point)), g.tensors[name].dtype


def _lower_lookup(grp: _Group, mode: str) -> None:
    """DQ → Sigmoid / Tanh / HardSwish / HardSigmoid / LeakyRelu / Relu / Clip → Q: one lut8 whose table holds the
    quantized function value of every input code: onnxruntime's float32 arithmetic, or with --requant fixed TFLite's
    int8 kernel's (mcucomp/ops/_tflite_lut.py; HardSigmoid, which TFLite lacks, keeps onnxruntime's)."""
    g, node = grp.g, grp.node
    src = dq_source(g, node.inputs[0])
    fn = _table_function(g, node)
    if src is None or fn is None or grp.act is not None or not src[1].per_tensor \
            or g.tensors[src[0]].dtype not in QRANGE:
        return
    y, yq, _ = grp.sink
    set_quant(g, y, yq)
    table = None
    if mode == "fixed":
        clip = [None if not i else float(g.const(i)) for i in (node.inputs + ["", ""])[1:3]]
        table = tflite_table(node.op, node.attrs, _q_triple(g, src[0], src[1]), _q_triple(g, y, yq), tuple(clip))
    grp.finish("lut8", [src[0]], _table_attrs(g, src[0], src[1], y, yq, fn) if table is None else
               {"table": table, "x_lo": QRANGE[g.tensors[src[0]].dtype][0], "y_shift": 0})


LOWERINGS = {
    "Conv": _lower_conv,
    "ConvTranspose": _lower_conv_transpose,
    "Gemm": _lower_gemm,
    "MatMul": _lower_matmul,
    "AveragePool": _lower_avgpool,
    "GlobalAveragePool": _lower_avgpool,
    "Add": _lower_add,
    "Mul": _lower_mul,
    "Softmax": _lower_softmax,
    "Reshape": _lower_reshape,
    "MaxPool": _lower_data_movement,
    "Resize": _lower_data_movement,
    "Transpose": _lower_data_movement,
    "DepthToSpace": _lower_data_movement,
    "SpaceToDepth": _lower_data_movement,
    "Slice": _lower_data_movement,
    "Gather": _lower_data_movement,
    "Expand": _lower_data_movement,
    "Tile": _lower_data_movement,
    "Pad": _lower_data_movement,
    "Concat": _lower_concat,
    "Split": _lower_split,
    "Sigmoid": _lower_lookup,
    "Tanh": _lower_lookup,
    "HardSwish": _lower_lookup,
    "HardSigmoid": _lower_lookup,
    "LeakyRelu": _lower_lookup,
    "Relu": _lower_lookup,
    "Clip": _lower_lookup,
    "Flatten": _lower_reshape,
    "Squeeze": _lower_reshape,
    "Unsqueeze": _lower_reshape,
}


def _reads_dequantized(g: Graph, node: Node) -> bool:
    """True when an input of the node comes from a DequantizeLinear (the node starts a QDQ group)."""
    return node.op not in ("DequantizeLinear", "QuantizeLinear") and any(
        dq_source(g, i) is not None for i in node.inputs if i)


def run(g: Graph, options: dict) -> Graph:
    """Lower every QDQ group with a known pattern (unmatched DQ/Q nodes stay as standalone ops; the float node gets
    attrs["_float_why"], the lowering's own reason or the pattern it expected), then run uint8 activations as int8
    (the 8-bit kernels' type)."""
    for node in list(g.nodes):
        if node not in g.nodes or node.domain or not _reads_dequantized(g, node):
            continue
        op = node.op
        if op not in LOWERINGS:
            node.attrs["_float_why"] = f"mcucomp has no int8 lowering for {op} (it runs in float between " \
                                       "DequantizeLinear and QuantizeLinear)"
            continue
        grp = _Group(g, node, options["requant"])
        if grp.sink is None:
            node.attrs["_float_why"] = ("its output does not go (through at most a Relu/Clip) to one QuantizeLinear "
                                        "with constant per-tensor parameters, so there is no int8 output to compute")
            continue
        why = LOWERINGS[op](grp, options["requant"])
        if node in g.nodes and node.op == op and _reads_dequantized(g, node):  # data movement keeps its op name
            pattern = " ".join(LOWERINGS[op].__doc__.split(":")[0].split())
            node.attrs["_float_why"] = why or f"the QDQ group does not match the int8 pattern mcucomp lowers: {pattern}"
    to_int8_domain(g)
    g.remove_unused()
    return g
