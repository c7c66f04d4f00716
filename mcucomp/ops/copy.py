"""Byte copy of a whole tensor of any dtype (remove_identity's graph-output Identity, reshape into an output)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._cost import copy_terms
from .base import KernelCall, KernelOp


def copy_call(node: Node, g: Graph) -> KernelCall:
    """mcu_copy(params{nbytes}, x, y) from input 0 to output 0."""
    return KernelCall("copy", [("nbytes", g.tensors[node.outputs[0]].nbytes)], [node.inputs[0], node.outputs[0]])


def copy_cost(node: Node, g: Graph) -> tuple[str, dict[str, int]]:
    """mcu_copy's path and loop counts: one memmove of output 0's bytes."""
    return "default", copy_terms([g.tensors[node.outputs[0]].nbytes])


class Copy(KernelOp):
    """A memmove of output 0's size from input 0; reached only by passes that set node.op = "copy"."""

    name = "copy"

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_copy(params{nbytes}, x, y)."""
        return copy_call(node, g)

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """One memmove (copy_cost)."""
        return copy_cost(node, g)


OP = Copy()
