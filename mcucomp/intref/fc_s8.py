"""fc_s8: y[r][o] = requant(bias[o] + sum_k (x[r][k] - x_zp)(w[o][k] - w_zp[o])), weights [out, in]; `fixed` mode
rounds once (mcucomp.ops.fc_s8.ROUNDING)."""

from __future__ import annotations

import numpy as np

from ..ops.fc_s8 import fc_requant
from ._arith import requantize_rq

OPS = ("fc_s8",)


def reference(node, g, mode, x, w, bias=None) -> np.ndarray:
    """Every row of x (the input viewed as [rows, in]) times the weights, requantized per output feature."""
    a = node.attrs
    w64 = w.astype(np.int64)
    if a.get("w_zp") is not None:
        w64 = w64 - np.asarray(a["w_zp"], np.int64).reshape(-1, 1)
    acc = (x.astype(np.int64).reshape(-1, w.shape[1]) - a["x_zp"]) @ w64.T
    if bias is not None:
        acc = acc + bias.astype(np.int64)
    return requantize_rq(acc, mode, fc_requant(a["rq"])).reshape(g.tensors[node.outputs[0]].shape)
