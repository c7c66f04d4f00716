"""Build memplan buffers and overlap permissions from the scheduled IR and map tensors to arena offsets.

Two lower bounds, both over the same execution order and at the arena alignment:

- `MemoryLayout.lower_bound` (report.json `live_lower_bound_bytes`): the largest sum of aligned buffer sizes live
  at one step, every buffer in bytes of its own. No placement without overlapping buffers can do better; this is
  also the peak the scheduler minimizes (`order_peak`).
- `MemoryLayout.overlap_bound`: the same, less what the kernels' overlap permissions (an output written over an
  input that dies at that step) can save at that step. The arena is never below it, and it is below
  `lower_bound` when an in-place or overlapping kernel runs at every step where `lower_bound` is reached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate

from memplan import Buffer, Overlap, align_up, live_lower_bound, plan_arena

from .errors import ModelError
from .ir import Graph, Node
from .ops import REGISTRY
from .schedule import model_order, order_peak


#: A 32-bit Cortex-M addresses 4 GiB: no arena, tensor or constant may reach it.
ADDRESS_SPACE_BYTES = 2**32
#: The kernels count elements and index dims with int32_t (mcu_rt.h).
MAX_ELEMENTS = 2**31 - 1


def check_tensor_sizes(g: Graph) -> None:
    """Every tensor has at most MAX_ELEMENTS elements and fewer than ADDRESS_SPACE_BYTES bytes, whatever the board."""
    for t in g.tensors.values():
        if t.size > MAX_ELEMENTS or t.nbytes >= ADDRESS_SPACE_BYTES:
            raise ModelError(
                f"Tensor '{t.name}' of shape {list(t.shape)} has {t.size:,} elements ({t.nbytes:,} B): a 32-bit "
                f"Cortex-M target addresses less than 4 GiB and its kernels count at most {MAX_ELEMENTS:,} elements "
                "per tensor, even with --no-fit-check. Give smaller input shapes with --shape."
            )


def check_arena_size(arena_size: int) -> None:
    """The arena (so every offset in it) fits the 32-bit address space, whatever the board."""
    if arena_size >= ADDRESS_SPACE_BYTES:
        raise ModelError(
            f"The arena needs {arena_size:,} B, but a 32-bit Cortex-M target addresses less than 4 GiB "
            f"({ADDRESS_SPACE_BYTES:,} B), even with --no-fit-check. Give smaller input shapes with --shape."
        )


@dataclass
class MemoryLayout:
    """Where every activation lives: arena offset of its storage root, lifetimes, and the arena size."""

    roots: dict[str, str]          # tensor → the tensor whose storage it uses (itself unless an alias)
    offsets: dict[str, int]        # storage root or scratch name → arena offset
    buffers: list[Buffer]
    arena_size: int
    lower_bound: int               # largest live set, no overlaps (report.json live_lower_bound_bytes)
    scratch: dict[str, str]        # node name → scratch buffer name
    caller_owned: set[str]
    placement: str = ""            # how memplan found the offsets (e.g. "first-fit by start")
    overlap_bound: int = 0         # largest live set less what the overlap permissions can save (<= lower_bound)
    overlaps: tuple[Overlap, ...] = ()  # output-over-input permissions given to the planner
    order_peak: int = 0            # peak live bytes of the order planned (== lower_bound)
    file_order_peak: int = 0       # peak live bytes of the model file's order (schedule.model_order)
    live_bytes: list[int] = field(default_factory=list)  # aligned bytes live at each step, no overlaps


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


def overlap_permissions(g: Graph, order: list[Node], roots: dict[str, str], planned: dict[str, Buffer]
                        ) -> tuple[Overlap, ...]:
    """One permission per node whose op declares an overlap margin and whose input 0 storage dies at that node.

    The input's storage root must be an arena buffer (not a constant, not caller-owned), must not be a graph output
    (the caller reads it after the run), must be last read at this step (so a reshape view read later keeps it),
    and must not be read through another input of the node as well (the margin covers input 0's reads only).
    """
    overlaps = []
    graph_outputs = {roots.get(o, o) for o in g.outputs}
    for step, node in enumerate(order):
        op = REGISTRY[node.op]
        if not node.inputs or not node.outputs or op.aliases_input(node, g):
            continue
        src = roots.get(node.inputs[0])
        dst = node.outputs[0]
        if src not in planned or dst not in planned or planned[src].last != step or planned[dst].first != step:
            continue
        if src in graph_outputs or src in {roots.get(i) for i in node.inputs[1:] if i}:
            continue
        rule = op.overlap_margin(node, g)
        if rule is not None:
            overlaps.append(Overlap(src, dst, rule.margin, rule.floor))
    return tuple(overlaps)


def plan_memory(g: Graph, order: list[Node], scratch_sizes: dict[str, int], io_in_arena: bool,
                alignment: int) -> MemoryLayout:
    """Lifetimes from the order, one buffer per storage root and scratch, overlap permissions, arena placement."""
    check_tensor_sizes(g)
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
    overlaps = overlap_permissions(g, order, roots, {b.name: b for b in buffers})
    scratch = {}
    for step, node in enumerate(order):
        size = scratch_sizes.get(node.name, 0)
        if size:
            scratch[node.name] = f"{node.name}#scratch"
            buffers.append(Buffer(scratch[node.name], size, step, step))
    plan = plan_arena(buffers, alignment, overlaps)
    check_arena_size(plan.arena_size)
    peaks = {"scratch_sizes": scratch_sizes, "io_in_arena": io_in_arena, "alignment": alignment}
    live = [0] * (len(order) + 1)
    for b in buffers:
        live[b.first] += align_up(b.size, alignment)
        live[b.last + 1] -= align_up(b.size, alignment)
    live = list(accumulate(live[:-1]))
    return MemoryLayout(roots, plan.offsets, buffers, plan.arena_size, live_lower_bound(buffers, alignment), scratch,
                        caller_owned, plan.method, plan.lower_bound, overlaps, order_peak(g, order, **peaks),
                        order_peak(g, model_order(g), **peaks), live)


def call_scratch(g: Graph, order: list[Node]) -> dict[str, int]:
    """Scratch bytes by node name, for the kernel calls that take any."""
    sizes = {}
    for node in order:
        op = REGISTRY[node.op]
        size = 0 if op.aliases_input(node, g) else op.call(node, g).scratch_bytes
        if size:
            sizes[node.name] = size
    return sizes


def choose_scratch(g: Graph, order: list[Node], io_in_arena: bool, alignment: int) -> None:
    """Grant the optional extras that only buy speed (KernelOp.scratch_optional: the im2col scratch, the depthwise
    pixel-pair path's overlap margin) where the arena stays small: all when that is no larger than with none of
    them, else one by one in schedule order, keeping each that does not grow it. A denied variant is not always the
    smaller (the in-place depthwise ring overlaps its input only exactly), so the arena is also tried with all granted
    and denied one by one, keeping each denial that shrinks it; the smaller of the two wins (a tie: the first).
    The others get node.attrs["scratch"] = False (their variant without), so every later stage sees one choice."""
    optional = [node for node in order if REGISTRY[node.op].scratch_optional(node, g)]

    def arena(granted: list[Node]) -> int:
        for node in optional:
            node.attrs["scratch"] = node in granted
        return plan_memory(g, order, call_scratch(g, order), io_in_arena, alignment).arena_size

    if not optional:
        return
    bound = arena([])
    granted: list[Node] = list(optional)
    if arena(optional) > bound:
        granted = []
        for node in optional:
            if arena(granted + [node]) <= bound:
                granted.append(node)
    kept, smallest = list(optional), arena(optional)
    for node in optional:
        trial = [k for k in kept if k is not node]
        size = arena(trial)
        if size < smallest:
            kept, smallest = trial, size
    arena(granted if arena(granted) <= smallest else kept)
