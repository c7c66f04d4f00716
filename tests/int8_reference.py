"""numpy references of mcucomp's int8 kernels, and a runner that evaluates a whole lowered graph with them.

Independent of the generated C: each kernel is written from its documented arithmetic, reading only the lowered
node's attributes and constant tensors (what `mcucomp.pipeline.lower_model` returns). Every requantization of an
integer accumulator (conv, fully connected, whole-window average pool) follows the `requant` option the model was
lowered with (not a mode recorded on the node, so a kernel that ignores the option is caught):
- "fixed": the real multiplier (scale, divided by `div` when set) goes through
  `mcucomp.fixedpoint.quantize_multiplier`, the accumulator through `mcucomp.fixedpoint.requant_fixed`;
- "onnx": float32 acc·scale [/ div], clamp, round half to even, + zp (onnxruntime's order).
Kernels whose arithmetic is float (float-mode add and average pooling, softmax) are evaluated in float32 one IEEE
operation at a time, in the kernel's documented order, with an exactly rounded fmaf, so results are bit-exact.
"""

from __future__ import annotations

import numpy as np

from mcucomp.fixedpoint import quantize_multiplier, requant_fixed

F32 = np.float32


def fmaf(a, b, c) -> np.ndarray:
    """Exactly rounded float32 a·b + c: the product is exact in float64, the sum is rounded to odd in float64
    (TwoSum error decides the sticky bit), so the final rounding to float32 is the only one that counts."""
    a, b, c = (np.asarray(v, F32) for v in (a, b, c))
    with np.errstate(invalid="ignore", over="ignore"):  # infinities and NaN propagate as IEEE says, silently
        p = a.astype(np.float64) * b.astype(np.float64)
        c64 = c.astype(np.float64)
        s = p + c64
        bv = s - p
        err = (p - (s - bv)) + (c64 - bv)
        even = (s.view(np.int64) & 1) == 0
        s = np.where((err != 0) & even, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
        return s.astype(F32)


def pow2i(n) -> np.ndarray:
    """2^n as float32 for -126 <= n <= 127 (n an integer array)."""
    return ((np.asarray(n, np.int64) + 127) << 23).astype(np.uint32).view(F32)


def expf(x) -> np.ndarray:
    """mcu_expf (runtime_c/mcu_math.h): MLAS's range reduction and degree-6 polynomial, in float32."""
    x = np.asarray(x, F32)
    bias = F32(12582912.0)
    n = fmaf(x, F32(1.44269504088896341), bias) - bias
    k = np.clip(np.nan_to_num(n), -200, 200).astype(np.int64)
    r = fmaf(n, F32(-6.93145752e-1), x)
    r = fmaf(n, F32(-1.42860677e-6), r)
    p = np.full_like(x, F32(float.fromhex("0x1.694000p-10")))
    for coeff in ("0x1.125edcp-7", "0x1.555b5ap-5", "0x1.555450p-3", "0x1.fffff6p-2"):
        p = fmaf(p, r, F32(float.fromhex(coeff)))
    p = fmaf(p, r, F32(1.0))
    p = fmaf(p, r, F32(1.0))
    with np.errstate(over="ignore", under="ignore"):  # every branch is evaluated; np.where keeps the right one
        big = (p * F32(2.0)) * pow2i(np.clip(k - 1, -126, 127))
        tiny = (p * pow2i(np.clip(k + 64, -126, 127))) * pow2i(-64)
        y = np.where(k > 127, big, np.where(k < -126, tiny, p * pow2i(np.clip(k, -126, 127))))
    y = np.where(x > F32(88.7228394), F32(np.inf), np.where(x < F32(-103.972084), F32(0.0), y))
    return np.where(np.isnan(x), x, y).astype(F32)


def softmax_row(x: np.ndarray) -> np.ndarray:
    """mcu_softmax_strided on one row: max, e^(x - max), 16-lane sum reduced pairwise, times 1 / sum."""
    x = np.asarray(x, F32)
    e = expf(x + (-x.max()))
    lanes = np.zeros(16, F32)
    for i, v in enumerate(e):
        lanes[i % 16] = lanes[i % 16] + v
    a = lanes[8:] + lanes[:8]
    total = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
    return e * (F32(1.0) / total)


def clampf(v, lo, hi) -> np.ndarray:
    """mcu_clampf: NaN goes to lo."""
    v = np.asarray(v, F32)
    return np.where(~(v >= F32(lo)), F32(lo), np.where(v > F32(hi), F32(hi), v)).astype(F32)


def quantize_float(v, zp: int, qmin: int, qmax: int) -> np.ndarray:
    """Clamp to [qmin - zp, qmax - zp], round half to even, add zp (the end of every float int8 path)."""
    return np.rint(clampf(v, qmin - zp, qmax - zp)).astype(np.int64) + zp


def requantize(acc: np.ndarray, mode: str, scale, zp: int, qmin: int, qmax: int, div: float = 0.0) -> np.ndarray:
    """An int32 accumulator [N, C, ...] to the output range; scale is per tensor or per channel (axis 1)."""
    acc = np.asarray(acc, np.int64)
    scale = np.asarray(scale, F32).reshape(-1)
    bshape = [1] * acc.ndim
    if scale.size > 1:
        bshape[1] = scale.size
    if mode == "fixed":
        real = scale.astype(np.float64) / (div if div else 1.0)
        pairs = [quantize_multiplier(float(r)) for r in real]
        mult = np.array([m for m, _ in pairs], np.int64).reshape(bshape)
        shift = np.array([s for _, s in pairs], np.int64).reshape(bshape)
        return requant_fixed(acc, mult, shift, zp, qmin, qmax)
    v = acc.astype(F32) * scale.reshape(bshape)
    if div:
        v = v / F32(div)
    return quantize_float(v, zp, qmin, qmax)


def requantize_rq(acc: np.ndarray, mode: str, rq) -> np.ndarray:
    """requantize with the scale, zero point, range and divisor of a mcucomp.quant.Requant."""
    return requantize(acc, mode, rq.scale, rq.zp, rq.qmin, rq.qmax, rq.div)


def _windows(x: np.ndarray, attrs: dict, out_hw: tuple[int, int], pad_value) -> np.ndarray:
    """Every window tap of an NCHW input: [N, C, k_h, k_w, H_out, W_out]; taps in the pads, or past them (a ceil_mode
    window), read pad_value."""
    (kh, kw), (sh, sw), (dh, dw) = attrs["kernel"], attrs["strides"], attrs["dilations"]
    pt, pl, pb, pr = attrs["pads"]
    oh, ow = out_hw
    past_b = max(0, (oh - 1) * sh + (kh - 1) * dh + 1 - (pt + x.shape[2] + pb))
    past_r = max(0, (ow - 1) * sw + (kw - 1) * dw + 1 - (pl + x.shape[3] + pr))
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb + past_b), (pl, pr + past_r)), constant_values=pad_value)
    taps = np.empty(x.shape[:2] + (kh, kw, oh, ow), x.dtype)
    for ky in range(kh):
        for kx in range(kw):
            y0, x0 = ky * dh, kx * dw
            taps[:, :, ky, kx] = xp[:, :, y0:y0 + sh * (oh - 1) + 1:sh, x0:x0 + sw * (ow - 1) + 1:sw]
    return taps


def _nchw(a: np.ndarray) -> np.ndarray:
    """View a rank-3 (N, C, W) array as N, C, 1, W."""
    return a[:, :, None, :] if a.ndim == 3 else a


def conv2d_s8(node, g, mode, x, w, bias=None) -> np.ndarray:
    """int32 sum of (x - x_zp)(w - w_zp[oc]) over each window (padding contributes 0), + bias, requantized."""
    a = node.attrs
    out_shape = g.tensors[node.outputs[0]].shape
    x4 = _nchw(x.astype(np.int64) - a["x_zp"])
    w4 = _nchw(w.astype(np.int64)) if w.ndim == 3 else w.astype(np.int64)
    if a.get("w_zp") is not None:
        w4 = w4 - np.asarray(a["w_zp"], np.int64).reshape(-1, 1, 1, 1)
    n, oc, oh, ow = _nchw(np.empty(out_shape, np.int8)).shape
    group = a.get("group", 1)
    taps = _windows(x4, a, (oh, ow), 0)
    taps = taps.reshape(n, group, x4.shape[1] // group, *taps.shape[2:])
    wg = w4.reshape(group, oc // group, *w4.shape[1:])
    acc = np.einsum("ngcyxhw,gocyx->ngohw", taps, wg).reshape(n, oc, oh, ow)
    if bias is not None:
        acc = acc + bias.astype(np.int64).reshape(1, -1, 1, 1)
    return requantize_rq(acc, mode, a["rq"]).reshape(out_shape)


def fc_s8(node, g, mode, x, w, bias=None) -> np.ndarray:
    """y[r][o] = requant(bias[o] + sum_k (x[r][k] - x_zp)(w[o][k] - w_zp[o])), weights [out, in]."""
    a = node.attrs
    w64 = w.astype(np.int64)
    if a.get("w_zp") is not None:
        w64 = w64 - np.asarray(a["w_zp"], np.int64).reshape(-1, 1)
    acc = (x.astype(np.int64).reshape(-1, w.shape[1]) - a["x_zp"]) @ w64.T
    if bias is not None:
        acc = acc + bias.astype(np.int64)
    return requantize_rq(acc, mode, a["rq"]).reshape(g.tensors[node.outputs[0]].shape)


def add_s8(node, g, mode, x_a, x_b) -> np.ndarray:
    """QLinearAdd (two fmaf with onnxruntime's ratios and fixed term, in its uint8 domain where retyped) or the
    float DequantizeLinear, add, QuantizeLinear sequence; numpy broadcasting."""
    a = node.attrs
    qa, qb = np.broadcast_arrays(x_a.astype(np.int64), x_b.astype(np.int64))
    if a["mode"] == "qlinear":
        a_off, b_off, y_off = a.get("offsets", (0, 0, 0))
        r_ay, r_by = F32(a["a_scale"]) / F32(a["y_scale"]), F32(a["b_scale"]) / F32(a["y_scale"])
        b_term = F32(r_by * F32(a["b_zp"] + b_off))
        fixed = F32(F32(a["y_zp"] + y_off) - F32(np.float64(r_ay) * np.float64(a["a_zp"] + a_off)
                                                 + np.float64(b_term)))
        v = fmaf((qb + b_off).astype(F32), r_by, fixed)
        v = fmaf((qa + a_off).astype(F32), r_ay, v)
        return np.rint(clampf(v, a["qmin"] + y_off, a["qmax"] + y_off)).astype(np.int64) - y_off
    v = (qa - a["a_zp"]).astype(F32) * F32(a["a_scale"]) + (qb - a["b_zp"]).astype(F32) * F32(a["b_scale"])
    return quantize_float(v / F32(a["y_scale"]), a["y_zp"], a["qmin"], a["qmax"])


def _padded_taps(shape: tuple[int, ...], attrs: dict, out_hw: tuple[int, int]) -> np.ndarray:
    """Per output, how many window taps fall inside the padded input (fewer than the kernel past the pads)."""
    pt, pl, pb, pr = attrs["pads"]
    inside = np.ones((1, 1, shape[2] + pt + pb, shape[3] + pl + pr), np.int64)
    taps = _windows(inside, {**attrs, "pads": [0, 0, 0, 0]}, out_hw, 0)
    return np.broadcast_to(taps.sum(axis=(2, 3)), shape[:2] + tuple(out_hw))


def avgpool_s8(node, g, mode, x) -> np.ndarray:
    """Whole-window integer sum with one requantization by x_scale / (y_scale · window) ('global_int'), or the
    float path: sum of (q - x_zp)·x_scale in window order, / count, / y_scale, quantized; count is the taps inside
    the input ('valid'), the kernel size ('kernel') or the taps inside the padded input ('padded')."""
    a = node.attrs
    out_shape = g.tensors[node.outputs[0]].shape
    oh, ow = _nchw(np.empty(out_shape, np.int8)).shape[2:]
    kh, kw = a["kernel"]
    q = _nchw(x.astype(np.int64) - a["x_zp"])
    if a["mode"] == "global_int":
        isum = q.sum(axis=(2, 3), keepdims=True)
        scale = F32(a["x_scale"]) / F32(F32(a["y_scale"]) * F32(kh * kw))
        return requantize(isum, mode, scale, a["y_zp"], a["qmin"], a["qmax"]).reshape(out_shape)
    taps = _windows(q.astype(F32) * F32(a["x_scale"]), a, (oh, ow), np.nan)
    valid = ~np.isnan(taps)
    fsum = np.zeros(q.shape[:2] + (oh, ow), F32)
    for ky in range(kh):
        for kx in range(kw):
            fsum = np.where(valid[:, :, ky, kx], fsum + taps[:, :, ky, kx], fsum)
    count = {"valid": lambda: valid.sum(axis=(2, 3)), "kernel": lambda: np.full(fsum.shape, kh * kw),
             "padded": lambda: _padded_taps(q.shape, a, (oh, ow))}[a.get("count", "valid")]()
    v = (fsum / count.astype(F32)) / F32(a["y_scale"])
    return quantize_float(v, a["y_zp"], a["qmin"], a["qmax"]).reshape(out_shape)


def softmax_s8(node, g, mode, x) -> np.ndarray:
    """Dequantize a row, mcu_softmax_strided, then QuantizeLinear (v / y_scale, clamp, round half to even)."""
    a = node.attrs
    rows = np.moveaxis(x.astype(np.int64), a["axis"], -1)
    deq = (rows - a["x_zp"]).astype(F32) * F32(a["x_scale"])
    prob = np.stack([softmax_row(r) for r in deq.reshape(-1, deq.shape[-1])]).reshape(deq.shape)
    out = quantize_float(prob / F32(a["y_scale"]), a["y_zp"], a["qmin"], a["qmax"])
    return np.moveaxis(out, -1, a["axis"])


def same_data(node, g, mode, x) -> np.ndarray:
    """Reshape-like ops and copies: the same elements in the output's shape."""
    return x.reshape(g.tensors[node.outputs[0]].shape)


#: Kernel op → reference, called as kernel(node, graph, requant_mode, *input_arrays) (None for an absent input).
KERNELS = {"conv2d_s8": conv2d_s8, "fc_s8": fc_s8, "add_s8": add_s8, "avgpool_s8": avgpool_s8,
           "softmax_s8": softmax_s8, "reshape": same_data, "copy": same_data}


def run_lowered(lowered, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Evaluate a LoweredModel (lower_model's result) on feeds with these kernels; outputs by graph output name."""
    g, mode = lowered.graph, lowered.options["requant"]
    values = dict(feeds)
    for node in lowered.order:
        if node.op not in KERNELS:
            raise KeyError(f"no numpy reference for kernel op '{node.op}' (node '{node.name}')")
        args = [None if not name else values[name] if name in values else g.const(name) for name in node.inputs]
        out = KERNELS[node.op](node, g, mode, *args)
        values[node.outputs[0]] = np.asarray(out).astype(g.tensors[node.outputs[0]].dtype)
    return {name: values[name] for name in g.outputs}
