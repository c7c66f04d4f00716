"""Execution order of the lowered graph's nodes."""

from __future__ import annotations

from .ir import Graph, Node


def schedule(g: Graph) -> list[Node]:
    """A topological order that keeps the model's own node order where it is already valid."""
    ready = set(g.inputs) | {n for n, t in g.tensors.items() if t.is_const} | {""}
    pending = list(g.nodes)
    order: list[Node] = []
    while pending:
        for k, node in enumerate(pending):
            if all(i in ready for i in node.inputs):
                order.append(pending.pop(k))
                ready.update(node.outputs)
                break
        else:
            names = ", ".join(n.name for n in pending[:5])
            raise RuntimeError(f"graph has a cycle or a missing producer near: {names}")
    return order
