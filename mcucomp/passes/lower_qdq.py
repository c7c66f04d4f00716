"""Lower QDQ groups (DequantizeLinear → float op → [Relu/Clip] → QuantizeLinear) into int8 kernel ops.

In the default `--requant onnx` mode each group gets the arithmetic onnxruntime uses for it: onnxruntime fuses a
group into an integer op only when its type rules allow (see mcucomp/ortcompat.py), otherwise it runs the float op
between a DequantizeLinear and a QuantizeLinear. Both are reproduced bit for bit.
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from ..ops.base import canonical_window, shape
from ..quant import Requant, combined_scale, scalar
from .qutil import dq_source, out_range, q_sink, set_quant, single_consumer

ACTIVATIONS = ("Relu", "Clip")


def _retyped_to_u8(g: Graph) -> set[str]:
    """Quantized tensors onnxruntime retypes int8→uint8 (a Q whose only reader is a DQ with one reader)."""
    retyped = set()
    for q in g.nodes:
        if q.op != "QuantizeLinear" or len(q.inputs) < 3 or q.outputs[0] in g.outputs:
            continue
        dq = single_consumer(g, q.outputs[0])
        if dq is None or dq.op != "DequantizeLinear" or len(dq.inputs) < 3 or dq.outputs[0] in g.outputs:
            continue
        qz, dz = g.const(q.inputs[2]), g.const(dq.inputs[2])
        if qz is None or dz is None or qz.size != 1 or dz.size != 1 or qz.dtype != np.int8 or dz.dtype != np.int8:
            continue
        if int(qz.reshape(-1)[0]) == int(dz.reshape(-1)[0]) and len(g.consumers(dq.outputs[0])) == 1:
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
    """(quantized input, scale, zp) when `name` comes from a per-tensor DequantizeLinear of an int8 tensor."""
    src = dq_source(g, name)
    if src is None or not src[1].per_tensor or g.tensors[src[0]].dtype != "int8":
        return None
    return src[0], float(scalar(src[1].scale)), int(scalar(src[1].zero_point))


def _weight_zp(q, c_out: int) -> np.ndarray | None:
    """Per-output-channel weight zero points, or None when all are zero."""
    zp = np.asarray(q.zero_point, np.int32).reshape(-1)
    return np.broadcast_to(zp, (c_out,)).astype(np.int32).copy() if zp.any() else None


def _lower_conv(grp: _Group, mode: str) -> None:
    """DQ(x), DQ(w const int8), [DQ(b const int32)] → Conv → Q: conv2d_s8 when onnxruntime fuses, else dqf."""
    g, node = grp.g, grp.node
    x = _per_tensor_dq(g, node.inputs[0])
    w = dq_source(g, node.inputs[1])
    b = dq_source(g, node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    if x is None or w is None or g.const(w[0]) is None or g.tensors[w[0]].dtype != "int8":
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
    canonical_window(node, g, kernel)
    window = {k: node.attrs[k] for k in ("kernel", "strides", "dilations", "pads")}
    window["group"] = node.attrs.get("group", 1)
    set_quant(g, x[0], dq_source(g, node.inputs[0])[1])
    fused = grp.ort_type(x[0]) == grp.ort_type(y) and grp.ort_type(x[0]) != "int8" and not act_kept
    if fused or mode == "fixed":
        rq = Requant(combined_scale(x[1], w[1].scale, y_scale), y_zp, lo, hi, mode)
        grp.finish("conv2d_s8", [x[0], w[0], b[0] if b else ""],
                   {**window, "x_zp": x[2], "w_zp": _weight_zp(w[1], c_out), "rq": rq})
        return
    w_scale = np.broadcast_to(np.asarray(w[1].scale, np.float32).reshape(-1), (c_out,))
    w_f = (w_data.astype(np.float32) * w_scale.reshape((-1,) + (1,) * (w_data.ndim - 1))).astype(np.float32)
    inputs = [x[0], g.add_const(f"{w[0]}_dq", w_f)]
    if b is not None:
        b_scale = np.broadcast_to(np.asarray(b[1].scale, np.float32).reshape(-1), (c_out,))
        inputs.append(g.add_const(f"{b[0]}_dq", (g.const(b[0]).astype(np.float32) * b_scale).astype(np.float32)))
    grp.finish("conv2d_dqf_s8", inputs, {**window, "x_zp": x[2], "x_scale": x[1], "y_scale": y_scale,
                                         "y_zp": y_zp, "qmin": lo, "qmax": hi})


def _lower_gemm(grp: _Group, mode: str) -> None:
    """DQ(A), DQ(B const int8), [DQ(C const int32)] → Gemm(alpha 1, beta 1, no transA) → Q: fc_s8 (QGemm)."""
    g, node = grp.g, grp.node
    a = _per_tensor_dq(g, node.inputs[0])
    w = dq_source(g, node.inputs[1])
    c = dq_source(g, node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    attrs = node.attrs
    if a is None or w is None or g.const(w[0]) is None or g.tensors[w[0]].dtype != "int8" or attrs.get("transA", 0):
        return
    if attrs.get("alpha", 1.0) != 1.0 or attrs.get("beta", 1.0) != 1.0 or len(shape(g, node.inputs[0])) != 2:
        return
    if c is not None and (g.const(c[0]) is None or g.tensors[c[0]].dtype != "int32"):
        return
    y, yq, _ = grp.sink
    y_scale, y_zp = float(scalar(yq.scale)), int(scalar(yq.zero_point))
    lo, hi = out_range(g, y)
    lo, hi, _ = grp.clamp(y_zp, y_scale, lo, hi)
    w_data = g.const(w[0]) if attrs.get("transB", 0) else np.ascontiguousarray(g.const(w[0]).T)
    w_name = w[0] if attrs.get("transB", 0) else g.add_const(f"{w[0]}_t", w_data)
    scale = (np.float32(a[1]) * np.asarray(w[1].scale, np.float32).reshape(-1)).astype(np.float32)
    scale = (scale / np.float32(y_scale)).astype(np.float32)
    bias = ""
    if c is not None:
        bias = g.add_const(f"{c[0]}_b", np.broadcast_to(g.const(c[0]).reshape(-1), (w_data.shape[0],)).astype(np.int32))
    grp.finish("fc_s8", [a[0], w_name, bias],
               {"x_zp": a[2], "w_zp": None, "rq": Requant(scale, y_zp, lo, hi, mode)})


def _lower_avgpool(grp: _Group, mode: str) -> None:
    """DQ → AveragePool/GlobalAveragePool → Q: integer whole-image path when onnxruntime fuses, else float."""
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
    if node.attrs.get("ceil_mode", 0):
        return
    canonical_window(node, g, kernel)
    whole = kernel == in_hw and node.attrs["pads"] == [0, 0, 0, 0]
    fused = grp.ort_type(x[0]) == grp.ort_type(y) and not act_kept
    attrs = {k: node.attrs[k] for k in ("kernel", "strides", "dilations", "pads")}
    attrs.update(count_include_pad=node.attrs.get("count_include_pad", 0), x_scale=x[1], x_zp=x[2], y_scale=y_scale,
                 y_zp=y_zp, qmin=lo, qmax=hi, mode="global_int" if fused and whole else "float")
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
    """DQ → Softmax → Q (onnxruntime never fuses it): softmax_s8 with the float sequence inside."""
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
                                      "qmin": lo, "qmax": hi})


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
    """Lower every QDQ group with a known pattern; unmatched DQ/Q nodes stay as standalone ops."""
    u8 = _retyped_to_u8(g)
    for node in list(g.nodes):
        if node not in g.nodes or node.domain or node.op not in LOWERINGS:
            continue
        grp = _Group(g, node, u8)
        if grp.sink is None:
            continue
        LOWERINGS[node.op](grp, options["requant"])
    g.remove_unused()
    return g
