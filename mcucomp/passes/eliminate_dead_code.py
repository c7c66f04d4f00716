"""Remove nodes whose outputs nothing reads."""

from __future__ import annotations

from ..ir import Graph


def run(g: Graph, options: dict) -> Graph:
    """Drop dead nodes until none is left, then unused tensors."""
    changed = True
    while changed:
        read = set(g.outputs)
        for node in g.nodes:
            read.update(node.inputs)
        kept = [n for n in g.nodes if any(o in read for o in n.outputs if o)]
        changed = len(kept) != len(g.nodes)
        g.nodes = kept
    g.remove_unused()
    return g
