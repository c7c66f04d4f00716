"""Fuse a float Relu or Clip into the Conv that produces its input (the kernel clamps its output)."""

from __future__ import annotations

import math

import numpy as np

from ..ir import Graph, Node
from .qutil import single_consumer

PRODUCERS = ("Conv",)


def _clip_range(g: Graph, act: Node) -> tuple[float, float] | None:
    """(min, max) of a Relu or a Clip with constant bounds; None when a bound is not constant."""
    if act.op == "Relu":
        return 0.0, math.inf
    lo, hi = act.attrs.get("min", -math.inf), act.attrs.get("max", math.inf)
    for idx in (1, 2):
        if len(act.inputs) > idx and act.inputs[idx]:
            value = g.const(act.inputs[idx])
            if value is None:
                return None
            if idx == 1:
                lo = float(np.asarray(value).reshape(-1)[0])
            else:
                hi = float(np.asarray(value).reshape(-1)[0])
    return float(lo), float(hi)


def run(g: Graph, options: dict) -> Graph:
    """Move each fusable activation's range onto its producer as act_min/act_max and drop the activation."""
    for act in [n for n in g.nodes if n.op in ("Relu", "Clip") and not n.domain]:
        prod = g.producer(act.inputs[0])
        if prod is None or prod.op not in PRODUCERS or prod.domain or single_consumer(g, act.inputs[0]) is not act:
            continue
        if g.tensors[act.inputs[0]].dtype != "float32":
            continue
        rng = _clip_range(g, act)
        if rng is None:
            continue
        lo = max(rng[0], prod.attrs.get("act_min", -math.inf))
        hi = min(rng[1], prod.attrs.get("act_max", math.inf))
        prod.attrs.update(act_min=lo, act_max=hi)
        prod.outputs = [act.outputs[0]]
        g.nodes.remove(act)
    g.remove_unused()
    return g
