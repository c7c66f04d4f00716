"""Build memplan buffers from the scheduled IR and map tensors to arena offsets."""

from __future__ import annotations

from dataclasses import dataclass

from memplan import Buffer, plan_arena

from .ir import Graph, Node
from .ops import REGISTRY


@dataclass
class MemoryLayout:
    """Where every activation lives: arena offset of its storage root, lifetimes, and the arena size."""

    roots: dict[str, str]          # tensor → the tensor whose storage it uses (itself unless an alias)
    offsets: dict[str, int]        # storage root or scratch name → arena offset
    buffers: list[Buffer]
    arena_size: int
    lower_bound: int
    scratch: dict[str, str]        # node name → scratch buffer name
    caller_owned: set[str]
    placement: str = ""            # how memplan found the offsets (e.g. "first-fit by start")


def storage_roots(g: Graph, order: list[Node]) -> dict[str, str]:
    """Follow alias ops (reshape-like) to the tensor that owns the bytes."""
    roots = {}
    for node in order:
        op = REGISTRY[node.op]
        for out in node.outputs:
            roots[out] = out
        if op.aliases_input(node, g):
            src = node.inputs[0]
            roots[node.outputs[0]] = roots.get(src, src)
    return roots


def plan_memory(g: Graph, order: list[Node], scratch_sizes: dict[str, int], io_in_arena: bool,
                alignment: int) -> MemoryLayout:
    """Lifetimes from the order, one buffer per storage root and scratch, then arena placement."""
    roots = storage_roots(g, order)
    for name in g.inputs:
        roots.setdefault(name, name)
    last_step = len(order) - 1
    first: dict[str, int] = {name: 0 for name in g.inputs}
    last: dict[str, int] = {name: 0 for name in g.inputs}
    for step, node in enumerate(order):
        for out in node.outputs:
            r = roots[out]
            first.setdefault(r, step)
            last[r] = max(last.get(r, step), step)
        for inp in node.inputs:
            if inp and inp in roots:
                r = roots[inp]
                last[r] = max(last.get(r, step), step)
    for out in g.outputs:
        if out in roots:
            last[roots[out]] = last_step
    caller_owned = set() if io_in_arena else {roots.get(n, n) for n in g.inputs + g.outputs}
    buffers = [
        Buffer(r, g.tensors[r].nbytes, first[r], last[r])
        for r in first
        if r not in caller_owned and not g.tensors[r].is_const
    ]
    scratch = {}
    for step, node in enumerate(order):
        size = scratch_sizes.get(node.name, 0)
        if size:
            scratch[node.name] = f"{node.name}#scratch"
            buffers.append(Buffer(scratch[node.name], size, step, step))
    plan = plan_arena(buffers, alignment)
    return MemoryLayout(roots, plan.offsets, buffers, plan.arena_size, plan.lower_bound, scratch, caller_owned,
                        plan.method)
