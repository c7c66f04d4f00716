"""Compress with a constant condition: a Gather of the selected positions (the output length depends on it)."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from ._data import axis_view, has_dims
from .base import KernelCall, KernelOp, numel, shape
from .gather import gather_call, gather_cost


def _condition_constant(node: Node, g: Graph) -> bool:
    """Compress's condition must be a constant (the output length depends on it; bind a graph input with --const)."""
    return g.const(node.inputs[1]) is not None


class Compress(KernelOp):
    """Selection of slabs along an axis (or of elements of the flattened input when there is no axis)."""

    name = "compress"
    depends = ("index",)
    onnx_ops = ("Compress",)
    constraints = (has_dims, _condition_constant)
    cost_kernel = "gather"
    cost_paths = ()

    def lower(self, node: Node, g: Graph) -> None:
        """Replace the condition by the int32 positions it selects."""
        dims = shape(g, node.inputs[0])
        length = dims[node.attrs["axis"] % len(dims)] if "axis" in node.attrs else numel(dims)
        picked = np.flatnonzero(g.const(node.inputs[1]).reshape(-1)[:length]).astype(np.int32)
        node.inputs = [node.inputs[0], g.add_const(f"{node.name}_positions", picked)]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_gather over the axis, or over the flattened input."""
        dims = shape(g, node.inputs[0])
        if "axis" not in node.attrs:
            return gather_call(node, g, (1, numel(dims), 1))
        return gather_call(node, g, axis_view(dims, node.attrs["axis"] % len(dims)))

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """mcu_gather's (gather_cost)."""
        return gather_cost(self.call(node, g))


OP = Compress()
