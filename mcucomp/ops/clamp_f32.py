"""Float32 Relu, Clip and LeakyRelu as one clamp: y = clamp(x < 0 ? x * slope : x, lo, hi)."""

from __future__ import annotations

import math

import numpy as np

from ..ir import Graph, Node
from ._cost import element_terms
from ._overlap import elementwise
from .base import KernelCall, KernelOp, OverlapMargin, all_float32


def _bounds_constant(node: Node, g: Graph) -> bool:
    """Clip's min and max inputs, when given, must be constant initializers."""
    return all(g.const(name) is not None for name in node.inputs[1:3] if name)


def _clip_bound(node: Node, g: Graph, index: int, attr: str, default: float) -> float:
    """A Clip bound from input `index` (opset >= 11) or attribute `attr` (older opsets)."""
    if len(node.inputs) > index and node.inputs[index]:
        return float(g.const(node.inputs[index]).reshape(-1)[0])
    return float(node.attrs.get(attr, default))


class ClampF32(KernelOp):
    """Relu, Clip and LeakyRelu on float32 tensors."""

    name = "clamp_f32"
    cost_paths = ("lower_bound", "both_bounds", "slope", "general")
    onnx_ops = ("Relu", "Clip", "LeakyRelu")
    constraints = (all_float32, _bounds_constant)

    def lower(self, node: Node, g: Graph) -> None:
        """Store slope and bounds; Clip's constant bound inputs are dropped."""
        if node.op == "Relu":
            slope, lo, hi = 1.0, 0.0, math.inf
        elif node.op == "LeakyRelu":
            slope, lo, hi = float(node.attrs.get("alpha", 0.01)), -math.inf, math.inf
        else:
            slope = 1.0
            lo = _clip_bound(node, g, 1, "min", -math.inf)
            hi = _clip_bound(node, g, 2, "max", math.inf)
        node.attrs.update(neg_slope=slope, lo=lo, hi=hi)
        node.inputs = node.inputs[:1]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_clamp_f32(params{count, neg_slope, lo, hi}, x, y)."""
        a = node.attrs
        return KernelCall(self.name, [("count", g.tensors[node.outputs[0]].size), ("neg_slope", a["neg_slope"]),
                                      ("lo", a["lo"]), ("hi", a["hi"])], [node.inputs[0], node.outputs[0]])

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """The loop mcu_clamp_f32 picks from the parts that can change a value: a lower bound alone (Relu), both
        bounds (Clip), the slope alone (LeakyRelu), or every part (any other mix); each runs over the elements."""
        slope, lo, hi = (np.float32(node.attrs[k]) for k in ("neg_slope", "lo", "hi"))  # the C params' floats
        slope, lo, hi = slope != 1, lo > -np.inf, hi < np.inf  # NaN bounds: False, as in C
        path = {(False, True, False): "lower_bound", (False, True, True): "both_bounds",
                (True, False, False): "slope"}.get((slope, lo, hi), "general")
        return path, element_terms(node, g)

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads x[i], then writes y[i]."""
        return elementwise(node, g)


OP = ClampF32()
