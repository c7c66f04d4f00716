"""lut8: one table lookup per element (table indexed from the lowest input code x_lo, plus y_shift)."""

from __future__ import annotations

import numpy as np

OPS = ("lut8",)


def reference(node, g, mode, x) -> np.ndarray:
    """table[x - x_lo] + y_shift."""
    a = node.attrs
    return np.asarray(a["table"], np.int64)[x.astype(np.int64) - a["x_lo"]] + a["y_shift"]
