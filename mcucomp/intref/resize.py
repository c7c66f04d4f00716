"""resize of 8-bit codes (nearest mode only for 8-bit data): every output element copies its nearest source element,
per axis as mcucomp.ops.resize.axis_taps chooses it."""

from __future__ import annotations

import numpy as np

from ..ops.resize import axis_plan, axis_taps

OPS = ("resize",)


def reference(node, g, mode, x, *operands) -> np.ndarray:
    """x gathered by the per-axis nearest source indices (resized axes), untouched axes as they are."""
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
