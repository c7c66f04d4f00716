"""Fold an inference-mode BatchNormalization into the float Conv or Gemm that feeds it."""

from __future__ import annotations

import numpy as np

from ..ir import Graph
from .qutil import single_consumer

FOLDABLE = ("Conv", "Gemm")


def _bn_scale_shift(g: Graph, bn) -> tuple[np.ndarray, np.ndarray] | None:
    """Per-channel (scale, shift) with y = x·scale + shift, or None when BN's parameters are not constant."""
    params = [g.const(n) for n in bn.inputs[1:5]]
    if any(p is None for p in params):
        return None
    gamma, beta, mean, var = (np.asarray(p, np.float64) for p in params)
    scale = gamma / np.sqrt(var + float(bn.attrs.get("epsilon", 1e-5)))
    return scale, beta - mean * scale


def run(g: Graph, options: dict) -> Graph:
    """Rewrite producer weights and bias in float64, round once to float32, and bypass the BatchNormalization."""
    for bn in [n for n in g.nodes if n.op == "BatchNormalization" and not n.domain]:
        prod = g.producer(bn.inputs[0])
        if prod is None or prod.op not in FOLDABLE or single_consumer(g, bn.inputs[0]) is not bn:
            continue
        if len(bn.outputs) > 1 and any(bn.outputs[1:]) or g.tensors[bn.inputs[0]].dtype != "float32":
            continue
        w = g.const(prod.inputs[1])
        ss = _bn_scale_shift(g, bn)
        if w is None or ss is None or (prod.op == "Gemm" and (prod.attrs.get("transA", 0) or len(w.shape) != 2)):
            continue
        scale, shift = ss
        has_bias = len(prod.inputs) > 2 and bool(prod.inputs[2])
        if has_bias and g.const(prod.inputs[2]) is None:
            continue
        if prod.op == "Conv":
            new_w = w.astype(np.float64) * scale.reshape((-1,) + (1,) * (w.ndim - 1))
            bias = g.const(prod.inputs[2]).astype(np.float64) if has_bias else np.zeros(len(scale))
        else:
            trans_b = prod.attrs.get("transB", 0)
            new_w = w.astype(np.float64) * (scale[:, None] if trans_b else scale[None, :])
            beta = float(prod.attrs.get("beta", 1.0))
            bias = beta * np.broadcast_to(g.const(prod.inputs[2]), (len(scale),)).astype(np.float64) if has_bias \
                else np.zeros(len(scale))
            prod.attrs["beta"] = 1.0
            new_w *= float(prod.attrs.get("alpha", 1.0))
            prod.attrs["alpha"] = 1.0
        w_name = g.add_const(f"{prod.inputs[1]}_bn", new_w.astype(np.float32))
        b_name = g.add_const(f"{prod.name}_bn_bias", (bias * scale + shift).astype(np.float32))
        prod.inputs = [prod.inputs[0], w_name, b_name]
        prod.outputs = [bn.outputs[0]]
        g.nodes.remove(bn)
    g.remove_unused()
    return g
