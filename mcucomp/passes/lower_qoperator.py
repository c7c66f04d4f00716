"""Lower QOperator ops: QLinearConv, QLinearMatMul, MatMulInteger/ConvInteger + [Add] + DQ + Q chains, and the
com.microsoft ops quantize_static(QOperator) writes (QLinearAdd, QLinearMul, QLinearConcat, QLinearAveragePool,
QLinearGlobalAveragePool, QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax, QLinearWhere, QGemm), in onnxruntime's
arithmetic for each. uint8 tensors are lowered as they are; lower_qdq then runs them as int8 (qutil.to_int8_domain)."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node, Tensor
from ..ops import ONNX_OPS
from ..ops._lut import code_table, identity, leaky_relu, mlas_logistic
from ..ops._tflite_lut import tflite_table
from ..ops._window import canonical_hw
from ..ops.add_s8 import lowered_mode
from ..ops.avgpool_s8 import pool_kernel
from ..ops.base import shape
from ..quant import QRANGE, Requant, combined_scale, scalar
from .qutil import const_quant, int8_weights, out_range, set_quant, single_consumer, zp_array


def _bits8(g: Graph, *names: str) -> bool:
    """True when every named tensor is int8 or uint8 (uint8 activations run as int8, see qutil.to_int8_domain)."""
    return all(g.tensors[n].dtype in QRANGE for n in names)


def _reject(node: Node, why: str) -> None:
    """Leave the node for check_supported with a reason, unless a kernel may still run the op on its own."""
    if not ONNX_OPS.get(node.op):
        node.attrs["_unsupported"] = [why]


def _lower_qlinearconv(g: Graph, node: Node, mode: str) -> None:
    """QLinearConv(x, xs, xz, w, ws, wz, ys, yz, B) → conv2d_s8 with onnxruntime's per-channel scale."""
    x, xs, xz, w, ws, wz, ys, yz = node.inputs[:8]
    bias = node.inputs[8] if len(node.inputs) > 8 else ""
    if not _bits8(g, x, w, node.outputs[0]):
        return _reject(node, "x, w and y must be int8 or uint8")
    if g.const(w) is None or any(g.const(n) is None for n in (xs, xz, ws, wz, ys, yz, bias) if n):
        return _reject(node, "weights, bias, scales and zero points must be constant")
    c_out = shape(g, w)[0]
    set_quant(g, x, const_quant(g, xs, xz))
    set_quant(g, node.outputs[0], const_quant(g, ys, yz))
    set_quant(g, w, const_quant(g, ws, wz, 0))
    kernel = list(shape(g, w)[2:]) if len(shape(g, w)) == 4 else [1, shape(g, w)[2]]
    canonical_hw(node, g, kernel)
    lo, hi = out_range(g, node.outputs[0])
    w_name, w_zp = int8_weights(g, w, zp_array(g, wz, c_out))
    node.attrs.update(
        x_zp=int(scalar(g.const(xz))) if xz else 0,
        w_zp=w_zp,
        rq=Requant(combined_scale(g.const(xs), g.const(ws), g.const(ys)), int(scalar(g.const(yz))) if yz else 0,
                   lo, hi, mode),
    )
    node.inputs = [x, w_name, bias]
    node.op = "conv2d_s8"


def _fc_weights(g: Graph, b: str, zp: str | None) -> tuple[str, np.ndarray | None]:
    """MatMul weights [K, N] as a new int8 constant [N, K], so each output is one contiguous dot product, and their
    per-output zero points."""
    data = np.ascontiguousarray(g.const(b).T)
    return int8_weights(g, g.add_const(f"{b}_t", data, None), zp_array(g, zp, data.shape[0]))


def _channel_bias(g: Graph, name: str, out: str, axis: int, channels: int) -> np.ndarray | None:
    """A constant int32 Add operand that is one value per output channel (or one value): as [channels]."""
    data = g.const(name)
    if data is None or data.dtype != np.int32:
        return None
    rank = len(shape(g, out))
    dims = [1] * (rank - data.ndim) + list(data.shape)
    if any(d != 1 for i, d in enumerate(dims) if i != axis) or dims[axis] not in (1, channels):
        return None
    return np.broadcast_to(data.reshape(-1), (channels,)).astype(np.int32)


def _lower_integer_chain(g: Graph, node: Node, mode: str) -> None:
    """MatMulInteger/ConvInteger → [Add int32 bias] → DequantizeLinear → QuantizeLinear as one fc_s8/conv2d_s8:
    the exact int32 accumulator, then onnxruntime's DQ (acc · scale) and Q (a true division by y_scale)."""
    conv = node.op == "ConvInteger"
    x, w = node.inputs[0], node.inputs[1]
    x_zp = node.inputs[2] if len(node.inputs) > 2 else ""
    w_zp = node.inputs[3] if len(node.inputs) > 3 else ""
    w_data = g.const(w)
    channels = 0 if w_data is None else w_data.shape[0] if conv else w_data.shape[-1]
    axis = 1 if conv else len(shape(g, node.outputs[0])) - 1
    add = single_consumer(g, node.outputs[0])
    bias, tail = None, add
    if add is not None and add.op == "Add" and w_data is not None:
        other = [i for i in add.inputs if i != node.outputs[0]]
        bias = _channel_bias(g, other[0], add.outputs[0], axis, channels) if len(other) == 1 else None
        tail = single_consumer(g, add.outputs[0]) if bias is not None else add
    dq = tail if tail is not None and tail.op == "DequantizeLinear" else None
    q = single_consumer(g, dq.outputs[0]) if dq is not None else None
    if q is None or q.op != "QuantizeLinear" or w_data is None or w_data.ndim not in ((3, 4) if conv else (2,)):
        return _reject(node, f"{node.op} is supported only with constant weights followed by "
                             "[Add int32 bias →] DequantizeLinear → QuantizeLinear")
    dq_q = const_quant(g, dq.inputs[1], dq.inputs[2] if len(dq.inputs) > 2 else None)
    y_q = const_quant(g, q.inputs[1], q.inputs[2] if len(q.inputs) > 2 else None)
    per_channel_ok = dq_q is not None and (dq_q.per_tensor or (dq.attrs.get("axis", 1) % len(shape(g, dq.inputs[0]))
                                                               == axis and dq_q.scale.size == channels))
    if not (per_channel_ok and y_q and y_q.per_tensor) or np.any(dq_q.zero_point):
        return _reject(node, f"the DequantizeLinear/QuantizeLinear after {node.op} must have zero point 0 on the "
                             "int32 accumulator (per tensor or per output channel) and a per-tensor output")
    if not _bits8(g, x, w, q.outputs[0]) or (x_zp and g.const(x_zp) is None) or (w_zp and g.const(w_zp) is None):
        return _reject(node, "the input, the weights and the quantized output must be int8 or uint8, with constant "
                             "zero points")
    lo, hi = out_range(g, q.outputs[0])
    set_quant(g, q.outputs[0], y_q)
    if conv:
        canonical_hw(node, g, list(w_data.shape[2:]) if w_data.ndim == 4 else [1, w_data.shape[2]])
        w_name, w_z = int8_weights(g, w, zp_array(g, w_zp, channels))
    else:
        w_name, w_z = _fc_weights(g, w, w_zp)
    node.attrs.update(
        x_zp=int(scalar(g.const(x_zp))) if x_zp else 0,
        w_zp=w_z,
        rq=Requant(np.asarray(dq_q.scale, np.float32), int(scalar(y_q.zero_point)), lo, hi, mode,
                   div=float(scalar(y_q.scale))),
    )
    node.inputs = [x, w_name, g.add_const(f"{node.name}_bias", bias) if bias is not None else ""]
    node.outputs = [q.outputs[0]]
    node.op = "conv2d_s8" if conv else "fc_s8"
    for dead in (add if bias is not None else None, dq, q):
        if dead is not None:
            g.nodes.remove(dead)


def _lower_qlinearmatmul(g: Graph, node: Node, mode: str) -> None:
    """QLinearMatMul(a, as, az, b, bs, bz, ys, yz) with constant 2-D b → fc_s8."""
    a, as_, az, b, bs, bz, ys, yz = node.inputs[:8]
    if g.const(b) is None or len(shape(g, b)) != 2 or not _bits8(g, a, b, node.outputs[0]):
        return _reject(node, "QLinearMatMul needs constant 2-D 8-bit weights and 8-bit activations")
    if any(g.const(n) is None for n in (as_, az, bs, bz, ys, yz) if n):
        return _reject(node, "QLinearMatMul needs constant scales and zero points")
    lo, hi = out_range(g, node.outputs[0])
    set_quant(g, node.outputs[0], const_quant(g, ys, yz))
    w_name, w_zp = _fc_weights(g, b, bz)
    node.attrs = {
        "x_zp": int(scalar(g.const(az))) if az else 0,
        "w_zp": w_zp,
        "rq": Requant(combined_scale(g.const(as_), g.const(bs), g.const(ys)), int(scalar(g.const(yz))), lo, hi, mode),
    }
    node.inputs = [a, w_name, ""]
    node.op = "fc_s8"


def _scale_zp(g: Graph, scale: str, zp: str) -> tuple[float, int] | None:
    """A constant per-tensor (scale, zero point) pair; a missing zero point is 0."""
    q = const_quant(g, scale, zp or None)
    return None if q is None or not q.per_tensor else (float(scalar(q.scale)), int(scalar(q.zero_point)))


def _binary_operands(g: Graph, node: Node):
    """A QLinearAdd/QLinearMul's A, B, C, their constant per-tensor (scale, zero point) pairs and C's range; the node
    is rejected (None) unless all three share one 8-bit type with constant per-tensor parameters."""
    a, as_, az, b, bs, bz, cs, cz = (node.inputs + [""] * 8)[:8]
    params = [_scale_zp(g, s, z) for s, z in ((as_, az), (bs, bz), (cs, cz))]
    y = node.outputs[0]
    if any(p is None for p in params) or not _bits8(g, a, b, y) or len({g.tensors[n].dtype for n in (a, b, y)}) > 1:
        _reject(node, "A, B and C must share one 8-bit type, with constant per-tensor scales and zero points")
        return None
    return (a, b, y, *params, out_range(g, y))


def _lower_qlinearadd(g: Graph, node: Node, mode: str) -> None:
    """com.microsoft QLinearAdd(A, As, Az, B, Bs, Bz, Cs, Cz) → add_s8 in its arithmetic (MLAS QLinearAdd), or TFLite
    ADD's with --requant fixed."""
    operands = _binary_operands(g, node)
    if operands is None:
        return
    a, b, y, (a_s, a_z), (b_s, b_z), (y_s, y_z), (lo, hi) = operands
    off = 128 if g.tensors[y].dtype == "uint8" else 0
    node.attrs = {"mode": lowered_mode(mode, a_s, b_s, y_s), "offsets": (off, off, off), "a_scale": a_s, "a_zp": a_z, "b_scale": b_s,
                  "b_zp": b_z, "y_scale": y_s, "y_zp": y_z, "qmin": lo, "qmax": hi}
    node.inputs, node.op, node.domain = [a, b], "add_s8", ""


def _lower_qlinear_pool(g: Graph, node: Node, mode: str) -> None:
    """com.microsoft QLinearAveragePool / QLinearGlobalAveragePool (NCHW) → avgpool_s8: a whole-image window sums
    in integers; others in float as onnxruntime does (dividing by the kernel size when count_include_pad) with
    `float` requantization, in integers (window_int) with `fixed`."""
    x, xs, xz, ys, yz = (node.inputs + [""] * 5)[:5]
    params = [_scale_zp(g, s, z) for s, z in ((xs, xz), (ys, yz))]
    y = node.outputs[0]
    dims = shape(g, x)
    if any(p is None for p in params) or not _bits8(g, x, y) or node.attrs.get("channels_last", 0) or \
            len(dims) not in (3, 4):
        return _reject(node, "NCHW 1-D or 2-D 8-bit data with constant per-tensor scales and zero points only")
    (x_s, x_z), (y_s, y_z) = params
    in_hw = list(dims[2:]) if len(dims) == 4 else [1, dims[2]]
    kernel = in_hw if node.op == "QLinearGlobalAveragePool" else \
        [1, node.attrs["kernel_shape"][0]] if len(dims) == 3 else list(node.attrs["kernel_shape"])
    if node.op == "QLinearGlobalAveragePool":
        node.attrs = {}
    canonical_hw(node, g, kernel)
    lo, hi = out_range(g, y)
    whole = kernel == in_hw and node.attrs["pads"] == [0, 0, 0, 0]
    attrs = {k: node.attrs[k] for k in ("kernel", "strides", "dilations", "pads")}
    attrs.update(count="kernel" if node.attrs.get("count_include_pad", 0) else "valid", x_scale=x_s, x_zp=x_z,
                 y_scale=y_s, y_zp=y_z, qmin=lo, qmax=hi, requant=mode,
                 mode="global_int" if whole else "float" if mode == "float" else "window_int")
    node.op, node.attrs = pool_kernel(attrs, g.tensors[x].dtype, mode)  # one-pixel images: a lut8
    node.inputs, node.domain = [x], ""


def _lower_qlinearsoftmax(g: Graph, node: Node, mode: str) -> None:
    """com.microsoft QLinearSoftmax(X, xs, xz, ys, yz; axis, opset) → softmax_s8 with its lookup table."""
    x, xs, xz, ys, yz = (node.inputs + [""] * 5)[:5]
    params = [_scale_zp(g, s, z) for s, z in ((xs, xz), (ys, yz))]
    y = node.outputs[0]
    rank = len(shape(g, x))
    axis = node.attrs.get("axis", -1 if node.attrs.get("opset", 13) >= 13 else 1) % rank
    if any(p is None for p in params) or not _bits8(g, x, y) or g.tensors[x].dtype != g.tensors[y].dtype or \
            (node.attrs.get("opset", 13) < 13 and axis != rank - 1):
        return _reject(node, "X and Y of one 8-bit type, constant per-tensor scales and zero points, and (before "
                             "opset 13) the last axis only")
    (x_s, x_z), (y_s, y_z) = params
    lo, hi = out_range(g, y)
    node.attrs = {"axis": axis, "x_scale": x_s, "x_zp": x_z, "y_scale": y_s, "y_zp": y_z, "qmin": lo, "qmax": hi,
                  "mode": "qlinear", "ort_u8": g.tensors[y].dtype == "uint8"}
    node.inputs, node.op, node.domain = [x], "softmax_s8", ""


def _lower_qlinearmul(g: Graph, node: Node, mode: str) -> None:
    """com.microsoft QLinearMul(A, As, Az, B, Bs, Bz, Cs, Cz) → mul_s8 in MLAS QLinearMul's arithmetic."""
    operands = _binary_operands(g, node)
    if operands is None:
        return
    a, b, y, (a_s, a_z), (b_s, b_z), (y_s, y_z), (lo, hi) = operands
    set_quant(g, y, const_quant(g, node.inputs[6], node.inputs[7] if len(node.inputs) > 7 else None))
    node.attrs = {"mode": "fixed" if mode == "fixed" else "qlinear", "a_scale": a_s, "a_zp": a_z, "b_scale": b_s,
                  "b_zp": b_z, "y_scale": y_s, "y_zp": y_z, "qmin": lo, "qmax": hi,
                  "y_off": 128 if g.tensors[y].dtype == "uint8" else 0}
    node.inputs, node.op, node.domain = [a, b], "mul_s8", ""


def _lut_attrs(g: Graph, x: str, x_q: tuple[float, int], y: str, y_q: tuple[float, int], fn) -> dict:
    """lut8 attrs for y = quantize(fn(dequantize(x))) as onnxruntime's QlinearBuildLookupTable computes it."""
    table = code_table(x_q[0], x_q[1], g.tensors[x].dtype, y_q[0], y_q[1], g.tensors[y].dtype, fn)
    return {"table": table, "x_lo": QRANGE[g.tensors[x].dtype][0], "y_shift": 0}


def _lower_qlinear_lookup(g: Graph, node: Node, mode: str) -> None:
    """com.microsoft QLinearSigmoid / QLinearLeakyRelu(X, xs, xz, ys, yz) → lut8 with onnxruntime's table (TFLite's
    LOGISTIC / LEAKY_RELU table with --requant fixed)."""
    x, xs, xz, ys, yz = (node.inputs + [""] * 5)[:5]
    params = [_scale_zp(g, s, z) for s, z in ((xs, xz), (ys, yz))]
    y = node.outputs[0]
    if any(p is None for p in params) or not _bits8(g, x, y) or g.tensors[x].dtype != g.tensors[y].dtype:
        return _reject(node, "X and Y of one 8-bit type, with constant per-tensor scales and zero points")
    fn = mlas_logistic if node.op == "QLinearSigmoid" else leaky_relu(node.attrs.get("alpha", 0.01))
    set_quant(g, y, const_quant(g, ys, yz))
    table = tflite_table(node.op[len("QLinear"):], node.attrs, (*params[0], g.tensors[x].dtype),
                         (*params[1], g.tensors[y].dtype)) if mode == "fixed" else None
    node.attrs = _lut_attrs(g, x, params[0], y, params[1], fn) if table is None else \
        {"table": table, "x_lo": QRANGE[g.tensors[x].dtype][0], "y_shift": 0}
    node.inputs, node.op, node.domain = [x], "lut8", ""


def _new_activation(g: Graph, name: str, like: str) -> str:
    """A fresh activation tensor with the shape and dtype of `like`; return its name."""
    unique = name
    while unique in g.tensors:
        unique += "_"
    g.tensors[unique] = Tensor(unique, g.tensors[like].shape, g.tensors[like].dtype)
    return unique


def _requantized(g: Graph, node: Node, x: str, x_q: tuple[float, int], y: str, y_q: tuple[float, int]) -> str:
    """`x` as codes of y's quantization: x itself when onnxruntime copies it (equal float32 scale and zero point),
    else the output of a new lut8 before `node` with onnxruntime's identity table."""
    if np.float32(x_q[0]) == np.float32(y_q[0]) and x_q[1] == y_q[1]:
        return x
    requantized = _new_activation(g, f"{x}_requant", x)
    g.tensors[requantized].quant = g.tensors[y].quant
    g.nodes.insert(g.nodes.index(node), Node(f"{node.name}_{x}_requant", "lut8", [x], [requantized],
                                             _lut_attrs(g, x, x_q, y, y_q, identity)))
    return requantized


def _lower_qlinearconcat(g: Graph, node: Node, mode: str) -> None:
    """com.microsoft QLinearConcat(Ys, Yz, X0, X0s, X0z, ...; axis) → a lut8 requantizing each input whose scale or
    zero point differs from the output's (onnxruntime's identity table), then a plain Concat of the codes."""
    y = node.outputs[0]
    y_q = _scale_zp(g, node.inputs[0], node.inputs[1])
    groups = [node.inputs[i:i + 3] for i in range(2, len(node.inputs), 3)]
    x_qs = [_scale_zp(g, s, z) for _, s, z in groups]
    if y_q is None or any(q is None for q in x_qs) or any(g.tensors[x].is_const for x, _, _ in groups) or \
            len({g.tensors[n].dtype for n in [y] + [x for x, _, _ in groups]}) > 1 or not _bits8(g, y):
        return _reject(node, "inputs and output of one 8-bit type, non-constant inputs, and constant per-tensor "
                             "scales and zero points")
    set_quant(g, y, const_quant(g, node.inputs[0], node.inputs[1]))
    inputs = [_requantized(g, node, x, x_q, y, y_q) for (x, _, _), x_q in zip(groups, x_qs)]
    node.attrs = {"axis": node.attrs.get("axis", 0)}
    node.inputs, node.op, node.domain = inputs, "Concat", ""


def _lower_qlinearwhere(g: Graph, node: Node, mode: str) -> None:
    """com.microsoft QLinearWhere(cond, X, Xs, Xz, Y, Ys, Yz, Zs, Zz) → X and Y requantized to Z like QLinearConcat's
    inputs (onnxruntime's identity tables), then a plain Where of the codes."""
    cond, x, xs, xz, y, ys, yz, zs, zz = (node.inputs + [""] * 9)[:9]
    z = node.outputs[0]
    params = [_scale_zp(g, s, zp) for s, zp in ((xs, xz), (ys, yz), (zs, zz))]
    if any(p is None for p in params) or any(g.tensors[n].is_const for n in (x, y)) or not _bits8(g, z) or \
            len({g.tensors[n].dtype for n in (x, y, z)}) > 1:
        return _reject(node, "X, Y and Z of one 8-bit type, non-constant X and Y, and constant per-tensor scales "
                             "and zero points")
    set_quant(g, z, const_quant(g, zs, zz))
    node.inputs = [cond, _requantized(g, node, x, params[0], z, params[2]),
                   _requantized(g, node, y, params[1], z, params[2])]
    node.attrs, node.op, node.domain = {}, "Where", ""


def _lower_qgemm(g: Graph, node: Node, mode: str) -> None:
    """com.microsoft QGemm(A, As, Az, B, Bs, Bz, [C int32], Ys, Yz; alpha, transA, transB) with constant B and an
    8-bit output → fc_s8: bias added to the int32 accumulator, scale float32 (alpha · As · Bs[n]) / Ys."""
    a, as_, az, b, bs, bz, c, ys, yz = (node.inputs + [""] * 9)[:9]
    y = node.outputs[0]
    attrs = node.attrs
    w = g.const(b)
    if not ys or not yz or node.attrs.get("transA", 0) or w is None or w.ndim != 2 or not _bits8(g, a, b, y):
        return _reject(node, "QGemm is supported with 8-bit A, constant 2-D 8-bit B, no transA, and an 8-bit output "
                             "(y_scale and y_zero_point given)")
    n_out = w.shape[0] if attrs.get("transB", 0) else w.shape[1]
    bias = g.const(c) if c else np.zeros(0, np.int32)
    if any(g.const(n) is None for n in (as_, az, bs, bz, ys, yz) if n) or bias is None or \
            (c and bias.size not in (1, n_out)):
        return _reject(node, "QGemm needs constant scales, zero points and bias (one value or one per output column)")
    lo, hi = out_range(g, y)
    scale = (np.float32(attrs.get("alpha", 1.0)) * np.float32(scalar(g.const(as_)))
             * np.asarray(g.const(bs), np.float32).reshape(-1)).astype(np.float32) / np.float32(scalar(g.const(ys)))
    set_quant(g, y, const_quant(g, ys, yz))
    w_name, w_zp = (int8_weights(g, b, zp_array(g, bz, n_out)) if attrs.get("transB", 0) else _fc_weights(g, b, bz))
    bias_name = g.add_const(f"{node.name}_bias", np.broadcast_to(bias.reshape(-1), (n_out,)).astype(np.int32)) \
        if c else ""
    node.attrs = {"x_zp": int(scalar(g.const(az))) if az else 0, "w_zp": w_zp,
                  "rq": Requant(scale.astype(np.float32), int(scalar(g.const(yz))), lo, hi, mode)}
    node.inputs, node.op, node.domain = [a, w_name, bias_name], "fc_s8", ""


def _lower_qlinearreducemean(g: Graph, node: Node, mode: str) -> None:
    """com.microsoft QLinearReduceMean: no reference arithmetic to reproduce."""
    _reject(node, "onnxruntime's CPU provider has no QLinearReduceMean kernel, so there is no reference arithmetic "
                  "to match bit for bit; quantize ReduceMean in QDQ format or keep it in float")


LOWERINGS = {
    "QLinearConv": _lower_qlinearconv,
    "MatMulInteger": _lower_integer_chain,
    "ConvInteger": _lower_integer_chain,
    "QLinearMatMul": _lower_qlinearmatmul,
}
#: com.microsoft ops (what quantize_static writes in QOperator format besides the standard ones).
MS_LOWERINGS = {
    "QLinearAdd": _lower_qlinearadd,
    "QLinearAveragePool": _lower_qlinear_pool,
    "QLinearGlobalAveragePool": _lower_qlinear_pool,
    "QLinearSoftmax": _lower_qlinearsoftmax,
    "QLinearMul": _lower_qlinearmul,
    "QLinearSigmoid": _lower_qlinear_lookup,
    "QLinearLeakyRelu": _lower_qlinear_lookup,
    "QLinearConcat": _lower_qlinearconcat,
    "QLinearWhere": _lower_qlinearwhere,
    "QGemm": _lower_qgemm,
    "QLinearReduceMean": _lower_qlinearreducemean,
}


def run(g: Graph, options: dict) -> Graph:
    """Lower every QOperator node this pass knows; others are left for later passes or the unsupported list."""
    for node in list(g.nodes):
        table = LOWERINGS if node.domain in ("", "ai.onnx") else MS_LOWERINGS if node.domain == "com.microsoft" else {}
        if node.op in table and node in g.nodes:
            table[node.op](g, node, options["requant"])
    g.remove_unused()
    return g
