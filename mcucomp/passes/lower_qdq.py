"""Lower QDQ groups (DequantizeLinear → float op → [Relu/Clip] → QuantizeLinear) into int8 kernel ops.

In the default `--requant onnx` mode each group gets the arithmetic onnxruntime (x86-64) uses for it: it fuses a
group into a QLinear*/QGemm op only when its selector's type rules allow, judged after its int8→uint8 retyping of
Q→DQ pairs (_retyped_to_u8) and with a Relu/Clip only when the Q makes it redundant; otherwise it runs the float op
between a DequantizeLinear and a QuantizeLinear (MLAS's summation orders: mcucomp/ortcompat.py). Both are reproduced
bit for bit. `--requant fixed` lowers every conv and matmul to the integer kernels with Q31 requantization.
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from ..ops._window import canonical_hw
from ..ops.base import shape
from ..quant import QRANGE, Requant, combined_scale, scalar
from .qutil import dq_source, int8_weights, out_range, q_sink, set_quant, single_consumer, to_int8_domain

ACTIVATIONS = ("Relu", "Clip")


def _dq_stays_unique(g: Graph, dq: Node) -> bool:
    """True when onnxruntime's EnsureUniqueDQForNodeUnit leaves `dq` alone (so its Q keeps a single reader).

    It duplicates a DQ for every reading input slot beyond the first, and for every slot when the DQ's output is
    also a graph output; a DQ that only makes a graph output is left alone."""
    out = dq.outputs[0]
    slots = sum(node.inputs.count(out) for node in g.consumers(out))
    return slots == 0 or (slots == 1 and out not in g.outputs)


def _retyped_to_u8(g: Graph) -> set[str]:
    """Quantized tensors onnxruntime retypes int8→uint8 (QDQS8ToU8Transformer): a Q whose only reader is a DQ,
    both with the same constant scalar int8 zero point. (Constant int8 DQ inputs keep their type in 1.31.)"""
    retyped = set()
    for q in g.nodes:
        if q.op != "QuantizeLinear" or len(q.inputs) < 3 or q.outputs[0] in g.outputs:
            continue
        dq = single_consumer(g, q.outputs[0])
        if dq is None or dq.op != "DequantizeLinear" or len(dq.inputs) < 3 or dq.inputs.count(q.outputs[0]) != 1:
            continue
        qz, dz = g.const(q.inputs[2]), g.const(dq.inputs[2])
        if qz is None or dz is None or qz.size != 1 or dz.size != 1 or qz.dtype != np.int8 or dz.dtype != np.int8:
            continue
        if int(qz.reshape(-1)[0]) == int(dz.reshape(-1)[0]) and _dq_stays_unique(g, dq):
            retyped.add(q.outputs[0])
    return retyped


class _Group:
    """A matched QDQ group: the float node, its quantized inputs, optional activation, and the output Q."""

    def __init__(self, g: Graph, node: Node, u8: set[str]):
        self.g, self.node = g, node
        self.act: Node | None = None
        out = node.outputs[0]
        nxt = single_consumer(g, out)
        if nxt is not None and nxt.op in ACTIVATIONS:
            self.act, out = nxt, nxt.outputs[0]
        self.sink = q_sink(g, out)
        self.u8 = u8

    def ort_type(self, quantized: str) -> str:
        """The type onnxruntime sees for a quantized tensor after its s8→u8 retyping."""
        return "uint8" if quantized in self.u8 else self.g.tensors[quantized].dtype

    def clamp(self, y_zp: int, y_scale: float, lo: int, hi: int) -> tuple[int, int, bool]:
        """Output range after the activation, and whether onnxruntime keeps the activation (blocking fusion)."""
        if self.act is None:
            return lo, hi, False
        if self.act.op == "Relu":
            return max(lo, y_zp), hi, y_zp != lo
        cmin = self.g.const(self.act.inputs[1]) if len(self.act.inputs) > 1 and self.act.inputs[1] else None
        cmax = self.g.const(self.act.inputs[2]) if len(self.act.inputs) > 2 and self.act.inputs[2] else None
        qlo = lo if cmin is None else max(lo, int(np.rint(np.float32(cmin) / np.float32(y_scale))) + y_zp)
        qhi = hi if cmax is None else min(hi, int(np.rint(np.float32(cmax) / np.float32(y_scale))) + y_zp)
        return qlo, qhi, not (qlo == lo and qhi == hi)

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


def _dequantized(data: np.ndarray, q, axis: int) -> np.ndarray:
    """Constant 8-bit or int32 data as onnxruntime's DequantizeLinear makes it: (float)(q - zp) * scale, per `axis`
    when the parameters are per channel."""
    view = [1] * data.ndim
    view[axis] = -1
    scale = np.asarray(q.scale, np.float32).reshape(view if np.size(q.scale) > 1 else [1] * data.ndim)
    zp = np.asarray(q.zero_point, np.int64).reshape(view if np.size(q.zero_point) > 1 else [1] * data.ndim)
    return ((data.astype(np.int64) - zp).astype(np.float32) * scale).astype(np.float32)


def _lower_conv(grp: _Group, mode: str) -> None:
    """DQ(x), DQ(w const 8-bit), [DQ(b const int32)] → Conv → Q: conv2d_s8 when onnxruntime fuses, else dqf."""
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
    lo, hi, act_kept = grp.clamp(y_zp, y_scale, lo, hi)
    w_data = g.const(w[0])
    c_out = w_data.shape[0]
    kernel = list(w_data.shape[2:]) if w_data.ndim == 4 else [1, w_data.shape[2]]
    canonical_hw(node, g, kernel)
    window = {k: node.attrs[k] for k in ("kernel", "strides", "dilations", "pads")}
    window["group"] = node.attrs.get("group", 1)
    set_quant(g, x[0], dq_source(g, node.inputs[0])[1])
    # x86 onnxruntime fuses uint8 activations only (int8 ones need both int8, which it does not allow there)
    fused = grp.ort_type(x[0]) == grp.ort_type(y) and grp.ort_type(x[0]) != "int8" and not act_kept
    if fused or mode == "fixed":
        rq = Requant(combined_scale(x[1], w[1].scale, y_scale), y_zp, lo, hi, mode)
        w_name, w_zp = int8_weights(g, w[0], _weight_zp(w[1], c_out))
        grp.finish("conv2d_s8", [x[0], w_name, b[0] if b else ""], {**window, "x_zp": x[2], "w_zp": w_zp, "rq": rq})
        return
    inputs = [x[0], g.add_const(f"{w[0]}_dq", _dequantized(w_data, w[1], 0))]
    if b is not None:
        b_f = np.broadcast_to(_dequantized(g.const(b[0]).reshape(-1), b[1], 0), (c_out,))
        inputs.append(g.add_const(f"{b[0]}_dq", np.ascontiguousarray(b_f)))
    grp.finish("conv2d_dqf_s8", inputs, {**window, "x_zp": x[2], "x_scale": x[1], "y_scale": y_scale,
                                         "y_zp": y_zp, "qmin": lo, "qmax": hi})


def _finish_fc_float(grp: _Group, a, w_f: np.ndarray, bias_f: np.ndarray | None, transb: bool, lo: int,
                     hi: int) -> None:
    """fc_s8 in float mode: onnxruntime runs the group as DQ, float MatMul/Gemm (MLAS), Q; w_f is [N, K]."""
    g = grp.g
    y, yq, _ = grp.sink
    inputs = [a[0], g.add_const(f"{grp.node.name}_wf", w_f),
              g.add_const(f"{grp.node.name}_bf", bias_f) if bias_f is not None else ""]
    rq = Requant(np.zeros(1, np.float32), int(scalar(yq.zero_point)), lo, hi)
    grp.finish("fc_s8", inputs, {"mode": "float", "x_zp": a[2], "x_scale": a[1], "w_zp": None, "rq": rq,
                                 "y_scale": float(scalar(yq.scale)), "transb": int(transb)})


def _lower_gemm(grp: _Group, mode: str) -> None:
    """DQ(A), DQ(B const 8-bit), [DQ(C const int32)] → Gemm(alpha 1, beta 1, no transA) → Q: fc_s8.

    onnxruntime fuses it (QGemm) when A and the output have one type and an int8 A has int8 B and the Relu/Clip,
    if any, is redundant; otherwise it runs DQ, float Gemm (C first in the accumulator), Q."""
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
    lo, hi, act_kept = grp.clamp(y_zp, y_scale, lo, hi)
    fused = (grp.ort_type(a[0]) == grp.ort_type(y) and not act_kept
             and not (grp.ort_type(a[0]) == "int8" and g.tensors[w[0]].dtype != "int8"))
    if not fused and mode != "fixed":
        w_f = _dequantized(g.const(w[0]), w[1], 0 if attrs.get("transB", 0) else 1)
        bias_f = None if c is None else np.broadcast_to(_dequantized(g.const(c[0]).reshape(-1), c[1], 0), (n_out,))
        return _finish_fc_float(grp, a, np.ascontiguousarray(w_f if attrs.get("transB", 0) else w_f.T), bias_f,
                                bool(attrs.get("transB", 0)), lo, hi)
    w_name, w_zp = int8_weights(g, w[0] if attrs.get("transB", 0) else g.add_const(f"{w[0]}_t", w_data),
                                _weight_zp(w[1], n_out))
    bias = ""
    if c is not None:
        bias = g.add_const(f"{c[0]}_b", np.broadcast_to(g.const(c[0]).reshape(-1), (n_out,)).astype(np.int32))
    grp.finish("fc_s8", [a[0], w_name, bias],
               {"x_zp": a[2], "w_zp": w_zp, "rq": Requant(combined_scale(a[1], w[1].scale, y_scale), y_zp, lo, hi,
                                                          mode)})


def _lower_matmul(grp: _Group, mode: str) -> None:
    """DQ(A), DQ(B const 2-D, per tensor or per column) → MatMul → Q: fc_s8.

    onnxruntime (x86) fuses it (QLinearMatMul) only when A is uint8 there (retyped or native), the output has A's
    type and the Relu/Clip, if any, is redundant; otherwise it runs DQ, float MatMul, Q."""
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
    lo, hi, act_kept = grp.clamp(y_zp, y_scale, lo, hi)
    fused = grp.ort_type(a[0]) == grp.ort_type(y) == "uint8" and not act_kept
    if not fused and mode != "fixed":
        return _finish_fc_float(grp, a, np.ascontiguousarray(_dequantized(w_data, w[1], 1).T), None, False, lo, hi)
    w_name, w_zp = int8_weights(g, g.add_const(f"{w[0]}_t", np.ascontiguousarray(w_data.T)),
                                _weight_zp(w[1], w_data.shape[1]))
    grp.finish("fc_s8", [a[0], w_name, ""],
               {"x_zp": a[2], "w_zp": w_zp,
                "rq": Requant(combined_scale(a[1], w[1].scale, y_scale), y_zp, lo, hi, mode)})


def _lower_avgpool(grp: _Group, mode: str) -> None:
    """DQ → AveragePool/GlobalAveragePool → Q: integer whole-image path when onnxruntime fuses (always with
    --requant fixed, whose requantization is the Q31 multiplier), else float."""
    g, node = grp.g, grp.node
    x = _per_tensor_dq(g, node.inputs[0])
    if x is None or len(shape(g, node.inputs[0])) not in (3, 4):
        return
    y, yq, _ = grp.sink
    y_scale, y_zp = float(scalar(yq.scale)), int(scalar(yq.zero_point))
    lo, hi = out_range(g, y)
    lo, hi, act_kept = grp.clamp(y_zp, y_scale, lo, hi)
    in_hw = list(shape(g, node.inputs[0])[2:]) if len(shape(g, node.inputs[0])) == 4 else [1, shape(g, node.inputs[0])[2]]
    if node.op == "GlobalAveragePool":
        node.attrs = {"kernel_shape": in_hw if len(shape(g, node.inputs[0])) == 4 else in_hw[1:]}
    kernel = list(node.attrs["kernel_shape"]) if len(node.attrs["kernel_shape"]) == 2 else [1, node.attrs["kernel_shape"][0]]
    canonical_hw(node, g, kernel)
    whole = kernel == in_hw and node.attrs["pads"] == [0, 0, 0, 0]
    fused = grp.ort_type(x[0]) == grp.ort_type(y) and not act_kept
    attrs = {k: node.attrs[k] for k in ("kernel", "strides", "dilations", "pads")}
    # count_include_pad: QLinearAveragePool divides by the kernel size, the float AveragePool by the taps inside
    # the padded input (less than the kernel for a ceil_mode window hanging past it)
    count = "valid" if not node.attrs.get("count_include_pad", 0) else "kernel" if fused else "padded"
    attrs.update(count=count, x_scale=x[1], x_zp=x[2], y_scale=y_scale,
                 y_zp=y_zp, qmin=lo, qmax=hi, requant=mode,
                 mode="global_int" if (fused or mode == "fixed") and whole else "float")
    grp.finish("avgpool_s8", [x[0]], attrs)


def _lower_add(grp: _Group, mode: str) -> None:
    """DQ(a), DQ(b) → Add → [Relu] → Q: QLinearAdd arithmetic when onnxruntime fuses, else float."""
    g, node = grp.g, grp.node
    a = _per_tensor_dq(g, node.inputs[0])
    b = _per_tensor_dq(g, node.inputs[1])
    if a is None or b is None:
        return
    y, yq, _ = grp.sink
    y_scale, y_zp = float(scalar(yq.scale)), int(scalar(yq.zero_point))
    lo, hi = out_range(g, y)
    lo, hi, act_kept = grp.clamp(y_zp, y_scale, lo, hi)
    fused = grp.ort_type(a[0]) == grp.ort_type(b[0]) == grp.ort_type(y) and not act_kept
    offsets = tuple(128 if grp.ort_type(t) == "uint8" else 0 for t in (a[0], b[0], y))
    grp.finish("add_s8", [a[0], b[0]], {"mode": "qlinear" if fused else "float", "offsets": offsets,
                                        "a_scale": a[1], "a_zp": a[2],
                                        "b_scale": b[1], "b_zp": b[2], "y_scale": y_scale, "y_zp": y_zp,
                                        "qmin": lo, "qmax": hi})


def _lower_softmax(grp: _Group, mode: str) -> None:
    """DQ → Softmax → Q: onnxruntime's QLinearSoftmax (lookup table) when it fuses, i.e. input and output have the
    same type there, else the float sequence (DQ, MLAS softmax, Q)."""
    g, node = grp.g, grp.node
    x = _per_tensor_dq(g, node.inputs[0])
    if x is None or grp.act is not None:
        return
    y, yq, _ = grp.sink
    lo, hi = out_range(g, y)
    rank = len(shape(g, node.inputs[0]))
    axis = node.attrs.get("axis", -1) % rank
    fused = grp.ort_type(x[0]) == grp.ort_type(y)
    grp.finish("softmax_s8", [x[0]], {"axis": axis, "x_scale": x[1], "x_zp": x[2],
                                      "y_scale": float(scalar(yq.scale)), "y_zp": int(scalar(yq.zero_point)),
                                      "qmin": lo, "qmax": hi, "mode": "qlinear" if fused else "float",
                                      "ort_u8": grp.ort_type(y) == "uint8"})


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


LOWERINGS = {
    "Conv": _lower_conv,
    "Gemm": _lower_gemm,
    "MatMul": _lower_matmul,
    "AveragePool": _lower_avgpool,
    "GlobalAveragePool": _lower_avgpool,
    "Add": _lower_add,
    "Softmax": _lower_softmax,
    "Reshape": _lower_reshape,
    "Flatten": _lower_reshape,
    "Squeeze": _lower_reshape,
    "Unsqueeze": _lower_reshape,
}


def run(g: Graph, options: dict) -> Graph:
    """Lower every QDQ group with a known pattern (unmatched DQ/Q nodes stay as standalone ops), then run uint8
    activations as int8 (the 8-bit kernels' type)."""
    u8 = _retyped_to_u8(g)
    for node in list(g.nodes):
        if node not in g.nodes or node.domain or node.op not in LOWERINGS:
            continue
        grp = _Group(g, node, u8)
        if grp.sink is None:
            continue
        LOWERINGS[node.op](grp, options["requant"])
    to_int8_domain(g)
    g.remove_unused()
    return g
