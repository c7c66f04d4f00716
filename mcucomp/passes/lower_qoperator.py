"""Lower QOperator ops: QLinearConv, QLinearMatMul, ConvInteger, and MatMulInteger + Add + DQ + Q chains."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from ..ops.base import canonical_window, shape
from ..quant import Requant, combined_scale, scalar
from .qutil import const_quant, out_range, set_quant, single_consumer, zp_array


def _int8(g: Graph, *names: str) -> bool:
    """True when every named tensor is int8."""
    return all(g.tensors[n].dtype == "int8" for n in names)


def _reject(node: Node, why: str) -> None:
    """Leave the node for check_supported with a reason."""
    node.attrs["_unsupported"] = [why]


def _lower_qlinearconv(g: Graph, node: Node, mode: str) -> None:
    """QLinearConv(x, xs, xz, w, ws, wz, ys, yz, B) → conv2d_s8 with onnxruntime's per-channel scale."""
    x, xs, xz, w, ws, wz, ys, yz = node.inputs[:8]
    bias = node.inputs[8] if len(node.inputs) > 8 else ""
    if not _int8(g, x, w, node.outputs[0]):
        return _reject(node, "only int8 activations and weights are supported (uint8 is not yet)")
    if g.const(w) is None or any(g.const(n) is None for n in (xs, xz, ws, wz, ys, yz) if n):
        return _reject(node, "weights, scales and zero points must be constant")
    c_out = shape(g, w)[0]
    set_quant(g, x, const_quant(g, xs, xz))
    set_quant(g, node.outputs[0], const_quant(g, ys, yz))
    set_quant(g, w, const_quant(g, ws, wz, 0))
    kernel = list(shape(g, w)[2:]) if len(shape(g, w)) == 4 else [1, shape(g, w)[2]]
    canonical_window(node, g, kernel)
    lo, hi = out_range(g, node.outputs[0])
    node.attrs.update(
        x_zp=int(scalar(g.const(xz))) if xz else 0,
        w_zp=zp_array(g, wz, c_out),
        rq=Requant(combined_scale(g.const(xs), g.const(ws), g.const(ys)), int(scalar(g.const(yz))) if yz else 0,
                   lo, hi, mode),
    )
    node.inputs = [x, w, bias]
    node.op = "conv2d_s8"


def _fc_weights(g: Graph, b: str) -> str:
    """MatMul weights [K, N] as a new constant [N, K] so each output is one contiguous dot product."""
    data = np.ascontiguousarray(g.const(b).T)
    return g.add_const(f"{b}_t", data, None)


def _lower_matmulinteger_chain(g: Graph, node: Node, mode: str) -> None:
    """MatMulInteger → Add(int32 bias) → DequantizeLinear → QuantizeLinear as one fc_s8."""
    a, b = node.inputs[0], node.inputs[1]
    a_zp = node.inputs[2] if len(node.inputs) > 2 else ""
    b_zp = node.inputs[3] if len(node.inputs) > 3 else ""
    add = single_consumer(g, node.outputs[0])
    bias = ""
    tail = add
    if add is not None and add.op == "Add":
        other = [i for i in add.inputs if i != node.outputs[0]]
        if len(other) == 1 and g.const(other[0]) is not None and g.tensors[other[0]].dtype == "int32":
            bias, tail = other[0], single_consumer(g, add.outputs[0])
    dq = tail if tail is not None and tail.op == "DequantizeLinear" else None
    q = single_consumer(g, dq.outputs[0]) if dq is not None else None
    if q is None or q.op != "QuantizeLinear" or g.const(b) is None or len(shape(g, b)) != 2:
        return _reject(node, "MatMulInteger is supported only with constant 2-D weights followed by "
                             "[Add int32 bias →] DequantizeLinear → QuantizeLinear")
    dq_q = const_quant(g, dq.inputs[1], dq.inputs[2] if len(dq.inputs) > 2 else None)
    y_q = const_quant(g, q.inputs[1], q.inputs[2] if len(q.inputs) > 2 else None)
    if not (dq_q and y_q and dq_q.per_tensor and y_q.per_tensor) or scalar(dq_q.zero_point) != 0:
        return _reject(node, "the DequantizeLinear/QuantizeLinear after MatMulInteger must be per-tensor with zero "
                             "point 0 on the int32 accumulator")
    if not _int8(g, a, b, q.outputs[0]):
        return _reject(node, "only int8 activations and weights are supported (uint8 is not yet)")
    n_out = shape(g, b)[1]
    lo, hi = out_range(g, q.outputs[0])
    set_quant(g, q.outputs[0], y_q)
    node.attrs = {
        "x_zp": int(scalar(g.const(a_zp))) if a_zp else 0,
        "w_zp": zp_array(g, b_zp, n_out),
        "rq": Requant(np.asarray(dq_q.scale, np.float32), int(scalar(y_q.zero_point)), lo, hi, mode,
                      div=float(scalar(y_q.scale))),
    }
    node.inputs = [a, _fc_weights(g, b), bias]
    node.outputs = [q.outputs[0]]
    node.op = "fc_s8"
    for dead in (add if bias else None, dq, q):
        if dead is not None:
            g.nodes.remove(dead)


def _lower_qlinearmatmul(g: Graph, node: Node, mode: str) -> None:
    """QLinearMatMul(a, as, az, b, bs, bz, ys, yz) with constant 2-D b → fc_s8."""
    a, as_, az, b, bs, bz, ys, yz = node.inputs[:8]
    if g.const(b) is None or len(shape(g, b)) != 2 or not _int8(g, a, b, node.outputs[0]):
        return _reject(node, "QLinearMatMul needs constant 2-D int8 weights and int8 activations")
    n_out = shape(g, b)[1]
    lo, hi = out_range(g, node.outputs[0])
    set_quant(g, node.outputs[0], const_quant(g, ys, yz))
    node.attrs = {
        "x_zp": int(scalar(g.const(az))) if az else 0,
        "w_zp": zp_array(g, bz, n_out),
        "rq": Requant(combined_scale(g.const(as_), g.const(bs), g.const(ys)), int(scalar(g.const(yz))), lo, hi, mode),
    }
    node.inputs = [a, _fc_weights(g, b), ""]
    node.op = "fc_s8"


LOWERINGS = {
    "QLinearConv": _lower_qlinearconv,
    "MatMulInteger": _lower_matmulinteger_chain,
    "QLinearMatMul": _lower_qlinearmatmul,
}


def run(g: Graph, options: dict) -> Graph:
    """Lower every QOperator node this pass knows; others are left for later passes or the unsupported list."""
    for node in list(g.nodes):
        if node.domain in ("", "ai.onnx") and node.op in LOWERINGS and node in g.nodes:
            LOWERINGS[node.op](g, node, options["requant"])
    g.remove_unused()
    return g
