"""Remove Identity and Dropout (inference mode, no mask output): readers use the input directly."""

from __future__ import annotations

from ..ir import Graph, Node
from ..ops.dropout import is_identity

REMOVABLE = {"Identity", "Dropout"}


def _removable(node: Node, g: Graph) -> bool:
    """Identity, or a Dropout that drops nothing and has no mask output (the dropout kernel writes masks)."""
    if node.op == "Dropout":
        return not any(node.outputs[1:]) and is_identity(node, g)
    return True


def run(g: Graph, options: dict) -> Graph:
    """Bypass every Identity/Dropout; a graph output keeps its name through a copy kernel."""
    for node in list(g.nodes):
        if node.op not in REMOVABLE or node.domain not in ("", "ai.onnx") or not _removable(node, g):
            continue
        src, dst = node.inputs[0], node.outputs[0]
        if dst in g.outputs and (src in g.inputs or src in g.outputs or g.tensors[src].is_const):
            node.op, node.inputs, node.outputs, node.attrs = "copy", [src], [dst], {}
            continue
        g.nodes.remove(node)
        if dst in g.outputs:
            producer = g.producer(src)
            producer.outputs = [dst if o == src else o for o in producer.outputs]
            g.rename_uses(src, dst)
        else:
            g.rename_uses(dst, src)
    g.remove_unused()
    return g
