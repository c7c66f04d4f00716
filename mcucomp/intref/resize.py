"""resize of 8-bit codes: nearest mode copies every output element's nearest source element, per axis as
mcucomp.ops.resize.axis_taps chooses it; linear mode sums the taps' codes times the product of their integer weights
(mcucomp.ops.resize.integer_weights) of the zero-point-free codes, divided by 2^shift rounding half to even (as
QuantizeLinear rounds the float interpolation of the dequantized values), plus the zero point."""

from __future__ import annotations

import numpy as np

from ..ops.resize import axis_plan, axis_tables, axis_taps, code_zero_point, integer_weights

OPS = ("resize",)


def _linear(node, g, x: np.ndarray) -> np.ndarray:
    """The integer-weighted sum over the taps of every output, per the kernel's per-axis tables."""
    tables = axis_tables(node, g)
    weights, shift = integer_weights(tables)
    starts = np.cumsum([0] + [t[0].size for t in tables[:-1]])
    zp = code_zero_point(g, node.inputs[0])
    flat = x.reshape(-1).astype(np.int64) - zp
    acc = np.zeros([t[0].shape[0] for t in tables], np.int64)
    for taps in np.ndindex(*[t[0].shape[1] for t in tables]):
        off, w = np.zeros(acc.shape, np.int64), np.ones(acc.shape, np.int64)
        for a, ((index, _, _, stride), tap, start) in enumerate(zip(tables, taps, starts)):
            view = [1] * len(tables)
            view[a] = -1
            off = off + (index[:, tap].astype(np.int64) * stride).reshape(view)
            w = w * weights[start + np.arange(index.shape[0]) * index.shape[1] + tap].astype(np.int64).reshape(view)
        acc = acc + w * flat[off]
    floor = acc >> shift
    rest = acc - (floor << shift)
    half = 1 << shift >> 1
    up = (rest > half) | ((rest == half) & (half != 0) & (floor % 2 == 1))
    return (floor + up + zp).reshape(g.tensors[node.outputs[0]].shape)


def reference(node, g, mode, x, *operands) -> np.ndarray:
    """x gathered by the per-axis nearest source indices (resized axes), untouched axes as they are; or the integer
    linear interpolation."""
    if node.attrs.get("mode", "nearest") in ("linear", b"linear"):
        return _linear(node, g, x)
    index = []
    for in_len, out_len, scale, roi, resized in axis_plan(node, g):
        if not resized:
            index.append(np.arange(out_len))
            continue
        src, weights, extrapolated = axis_taps(node, in_len, out_len, scale, roi)
        if src.shape[1] != 1 or extrapolated is not None and np.any(extrapolated):
            raise KeyError(f"no integer reference for non-nearest or extrapolating resize (node '{node.name}')")
        index.append(np.asarray(src)[:, 0])
    return x[np.ix_(*index)]
