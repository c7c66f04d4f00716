"""Trilu (upper or lower triangle of the last two dims, constant k), any dtype."""

from __future__ import annotations

from ..ir import Graph, Node
from ._data import const_ints, elem_bytes, operand
from .base import KernelCall, KernelOp, numel, shape


def _k_constant(node: Node, g: Graph) -> bool:
    """Trilu's k must be a constant (bind a graph input with --const)."""
    return not operand(node, 1) or g.const(node.inputs[1]) is not None


def _matrix(node: Node, g: Graph) -> bool:
    """Trilu's input must have at least 2 dims (the last two form the matrices)."""
    return len(shape(g, node.inputs[0])) >= 2


class Trilu(KernelOp):
    """Triangle of a batch of matrices; the other elements become zero."""

    name = "trilu"
    onnx_ops = ("Trilu",)
    constraints = (_matrix, _k_constant)

    def lower(self, node: Node, g: Graph) -> None:
        """Store k (clamped to the range where it matters) and keep only the data input."""
        rows, cols = shape(g, node.inputs[0])[-2:]
        k = const_ints(g, operand(node, 1)) or [0]
        node.attrs["k"] = min(max(k[0], -rows - 1), cols + 1)
        node.inputs = node.inputs[:1]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_trilu(params{batches, rows, cols, k, upper, elem_bytes}, x, y)."""
        dims = shape(g, node.inputs[0])
        params = [("batches", numel(dims[:-2])), ("rows", dims[-2]), ("cols", dims[-1]), ("k", node.attrs["k"]),
                  ("upper", int(node.attrs.get("upper", 1))), ("elem_bytes", elem_bytes(g, node.inputs[0]))]
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0]])


OP = Trilu()
