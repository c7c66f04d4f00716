"""Execution order of the lowered graph: the topological order with the smallest peak of live activation bytes.

Memory model (the one mcucomp.memory plans with): a storage root is live from the step of its producer (step 0
for graph inputs when I/O sits in the arena) to the step of its last reader, or to the end for graph outputs.
Alias ops (reshape-like) add no bytes: their output shares the input's root and extends its life. Constants take
no RAM; caller-owned graph inputs and outputs take none of the arena; a node's scratch is live at its step only.
Sizes are rounded up to the arena alignment, as the planner rounds them. Overlap permissions (an output written over
an input that dies at its step) are not modelled: the peak is the no-overlap live-set bound, MemoryLayout.lower_bound.

Search: the graph is cut at nodes every other node precedes or follows (any order runs them at the same step), and
each segment between cuts is solved on its own, exactly when it is small enough: dynamic programming over the sets
of scheduled nodes (Serenity, MLSys 2020), one level per step, keeping for every set the lowest peak that reaches
it, pruned by the model file's order's peak. Past a work budget, a beam search over the same states takes over.
Budgets count work, not time, so the same model always gets the same order.
"""

from __future__ import annotations

from dataclasses import dataclass

from memplan import align_up

from .errors import ModelError
from .ir import Graph, Node
from .ops import REGISTRY

#: (state, candidate node) pairs the exact search may examine over the whole graph.
EXACT_WORK_BUDGET = 1_500_000
#: States kept per step by the beam search used where the exact search ran out of budget.
BEAM_WIDTH = 48


@dataclass
class Schedule:
    """The chosen order and its peak live bytes, next to the model file's order and its peak."""

    order: list[Node]
    peak: int
    model_order: list[Node]
    model_order_peak: int
    exact: bool  # True when `peak` is proven to be the minimum over all topological orders


def model_order(g: Graph) -> list[Node]:
    """The model file's node order, with nodes moved later only where they would run before an input exists."""
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
            names = ", ".join(f"'{n.name}'" for n in pending[:5])
            raise ModelError(
                f"The graph has a cycle or reads a tensor nothing produces, near node(s) {names}. "
                "Check the model with onnx.checker.check_model(model, full_check=True)."
            )
    return order


def _is_alias(node: Node, g: Graph) -> bool:
    """True when the node's output shares its input's storage (ops outside the registry never alias)."""
    op = REGISTRY.get(node.op)
    return op is not None and op.aliases_input(node, g)


class _MemoryModel:
    """Nodes as bits of a mask; per node the bytes it allocates and keeps; per storage root its readers."""

    class OutOfBudget(Exception):
        """The exact search used up its work budget."""

    def __init__(self, g: Graph, nodes: list[Node], scratch_sizes: dict[str, int], io_in_arena: bool,
                 alignment: int):
        self.nodes = nodes
        n = len(nodes)
        producer: dict[str, int] = {}
        root: dict[str, str] = {name: name for name in g.inputs}
        born: dict[str, int] = {}
        for k, node in enumerate(nodes):
            for t in node.outputs:
                producer[t] = k
                root[t] = t
                born[t] = k
            if node.outputs and _is_alias(node, g):
                root[node.outputs[0]] = root[node.inputs[0]]
                del born[node.outputs[0]]
        caller_owned = set() if io_in_arena else {root.get(t, t) for t in g.inputs + g.outputs}

        def size(r: str) -> int:
            """Aligned arena bytes of a storage root."""
            return 0 if r in caller_owned else align_up(g.tensors[r].nbytes, alignment)

        self.readers: dict[str, int] = {}
        self.reads: list[list[str]] = []
        self.pred = [0] * n
        for k, node in enumerate(nodes):
            read = []
            for t in node.inputs:
                if not t or t not in root:
                    continue
                if t in producer:
                    self.pred[k] |= 1 << producer[t]
                r = root[t]
                if r not in read:
                    read.append(r)
                self.readers[r] = self.readers.get(r, 0) | 1 << k
            self.reads.append(read)
        self.outputs = {root[t] for t in g.outputs if t in root}
        self.size = {r: size(r) for r in set(root.values())}
        self.alloc = [0] * n
        self.keep = [0] * n
        for t, k in born.items():
            self.alloc[k] += self.size[t]
            if t in self.outputs or self.readers.get(t, 0):
                self.keep[k] += self.size[t]
        self.scratch = [align_up(scratch_sizes.get(node.name, 0), alignment) for node in nodes]
        inputs = {root[t] for t in g.inputs}
        self.initial_live = sum(self.size[r] for r in inputs)
        self.unread_inputs = sum(self.size[r] for r in inputs if r not in self.outputs and r not in self.readers)
        self.work_left = EXACT_WORK_BUDGET

    def step_bytes(self, live: int, k: int) -> int:
        """Bytes live while node k runs, given the bytes live before it."""
        return live + self.alloc[k] + self.scratch[k]

    def live_after(self, live: int, mask: int, k: int) -> int:
        """Bytes live after node k runs, given the bytes live before it and the nodes run before it (`mask`)."""
        done = mask | 1 << k
        freed = sum(self.size[r] for r in self.reads[k] if r not in self.outputs and not self.readers[r] & ~done)
        return live + self.keep[k] - freed - (self.unread_inputs if mask == 0 else 0)

    def live_bytes(self, order: list[int]) -> list[int]:
        """Bytes live at every step of an order of node indices."""
        per_step, live, mask = [], self.initial_live, 0
        for k in order:
            per_step.append(self.step_bytes(live, k))
            live = self.live_after(live, mask, k)
            mask |= 1 << k
        return per_step

    def segments(self) -> list[list[int]]:
        """Node indices grouped between cut nodes (nodes all others precede or follow), in execution order."""
        n = len(self.nodes)
        ancestors = [0] * n
        for k in range(n):
            preds = self.pred[k]
            while preds:
                p = (preds & -preds).bit_length() - 1
                ancestors[k] |= ancestors[p] | 1 << p
                preds &= preds - 1
        descendants = [0] * n
        for k in range(n):
            a = ancestors[k]
            while a:
                p = (a & -a).bit_length() - 1
                descendants[p] += 1
                a &= a - 1
        cuts = [k for k in range(n) if ancestors[k].bit_count() + descendants[k] + 1 == n]
        cut_mask = sum(1 << k for k in cuts)
        groups: dict[int, list[int]] = {}
        for k in range(n):
            groups.setdefault((ancestors[k] & cut_mask).bit_count() + (cut_mask >> k & 1), []).append(k)
        return [groups[key] for key in sorted(groups)]

    def search(self, segment: list[int], start: int, start_live: int, bound: int,
               beam: int | None) -> tuple[int, list[int]] | None:
        """An order of `segment` (run after the nodes of `start`, `start_live` bytes live) with a peak below `bound`.

        Exact when `beam` is None (raises OutOfBudget past the work budget); otherwise keeps the `beam` best
        states per step. None when no order beats `bound`.
        """
        frontier = {start: (0, start_live)}
        links: list[dict[int, tuple[int, int]]] = []
        for _ in segment:
            if beam is None:
                self.work_left -= len(frontier) * len(segment)
                if self.work_left < 0:
                    raise self.OutOfBudget
            nxt: dict[int, tuple[int, int]] = {}
            link: dict[int, tuple[int, int]] = {}
            for mask, (peak, live) in frontier.items():
                for k in segment:
                    if mask >> k & 1 or self.pred[k] & ~mask:
                        continue
                    step_peak = max(peak, self.step_bytes(live, k))
                    if step_peak >= bound:
                        continue
                    new = mask | 1 << k
                    seen = nxt.get(new)
                    if seen is None or step_peak < seen[0]:
                        nxt[new] = (step_peak, self.live_after(live, mask, k) if seen is None else seen[1])
                        link[new] = (mask, k)
            if not nxt:
                return None
            if beam is not None and len(nxt) > beam:
                kept = sorted(nxt.items(), key=lambda item: (item[1], item[0]))[:beam]
                nxt = dict(kept)
            frontier = nxt
            links.append(link)
        (mask, (peak, _)), = frontier.items()
        order = []
        for link in reversed(links):
            mask, k = link[mask]
            order.append(k)
        return peak, order[::-1]

    def own_need(self, k: int) -> int:
        """Bytes node k needs whatever the order: what it reads, writes and scratches."""
        return sum(self.size[r] for r in self.reads[k]) + self.alloc[k] + self.scratch[k]


def choose_schedule(g: Graph, scratch_sizes: dict[str, int] | None = None, io_in_arena: bool = True,
                    alignment: int = 16) -> Schedule:
    """The order with the lowest peak live bytes found (proven minimal when `exact`), and the model order's peak."""
    base = model_order(g)
    model = _MemoryModel(g, base, scratch_sizes or {}, io_in_arena, alignment)
    base_steps = model.live_bytes(list(range(len(base))))
    chosen: list[int] = []
    done, live, exact = 0, model.initial_live, True
    for segment in model.segments():
        bound = max(base_steps[k] for k in segment)
        found = None
        if len(segment) > 1 and bound > max(model.own_need(k) for k in segment):
            try:
                found = model.search(segment, done, live, bound, None)
            except model.OutOfBudget:
                exact = False
                found = model.search(segment, done, live, bound, BEAM_WIDTH)
        for k in segment if found is None else found[1]:
            live = model.live_after(live, done, k)
            done |= 1 << k
            chosen.append(k)
    order = [base[k] for k in chosen]
    return Schedule(order, max(model.live_bytes(chosen), default=0), base, max(base_steps, default=0), exact)


def schedule(g: Graph, scratch_sizes: dict[str, int] | None = None, io_in_arena: bool = True,
             alignment: int = 16) -> list[Node]:
    """The execution order: the topological order with the lowest peak live bytes found."""
    return choose_schedule(g, scratch_sizes, io_in_arena, alignment).order


def order_peak(g: Graph, order: list[Node], scratch_sizes: dict[str, int] | None = None, io_in_arena: bool = True,
               alignment: int = 16) -> int:
    """Peak live bytes of a given topological order under the planner's memory model."""
    model = _MemoryModel(g, order, scratch_sizes or {}, io_in_arena, alignment)
    return max(model.live_bytes(list(range(len(order)))), default=0)
