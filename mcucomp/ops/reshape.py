"""Reshape, Flatten, Squeeze and Unsqueeze: the output shares the input's bytes (no call), any dtype."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import KernelCall, KernelOp
from .copy import copy_call, copy_cost


class Reshape(KernelOp):
    """A view with a new static shape (known after shape inference)."""

    name = "reshape"
    onnx_ops = ("Reshape", "Flatten", "Squeeze", "Unsqueeze")
    cost_kernel = "copy"
    cost_paths = ()
    depends = ("copy",)

    def lower(self, node: Node, g: Graph) -> None:
        """Drop the shape/axes inputs: the output shape is already static."""
        node.inputs = node.inputs[:1]
        node.op = self.name

    def aliases_input(self, node: Node, g: Graph) -> bool:
        """A view, except into a graph output (which owns its bytes, e.g. caller buffers) or from a constant."""
        return node.outputs[0] not in g.outputs and not g.tensors[node.inputs[0]].is_const

    def call(self, node: Node, g: Graph) -> KernelCall:
        """When the output cannot alias the input: mcu_copy of the bytes."""
        return copy_call(node, g)

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """mcu_copy's (copy_cost)."""
        return copy_cost(node, g)


OP = Reshape()
