"""Closing the gap to the live-set bound: bounded exhaustive search over placement orders, then hill climbing.

Both are deterministic (a fixed seed and fixed budgets, never wall-clock limits), so a model always compiles to
the same arena.
"""

from __future__ import annotations

import random

from .placement import first_fit, forbidden_ranges, place
from .problem import Problem

#: Problems with at most this many non-empty roots get the exhaustive search.
EXHAUSTIVE_LIMIT = 24
#: Placements the exhaustive search may try before giving up.
EXHAUSTIVE_BUDGET = 20_000
#: Hill climbing re-places the whole problem once per round; rounds shrink as problems grow.
HILL_WORK = 60_000
HILL_MAX_ROUNDS = 400
HILL_SEED = 0


def exhaustive(problem: Problem, arena: int, target: int) -> tuple[list[int], int] | None:
    """First-fit over placement orders, depth first, pruned at `arena`; stops at `target` or the budget.

    Without overlap permissions this is complete: placing the roots of any optimal plan by increasing offset
    with first-fit puts each at or below its optimal offset, so some order reaches the optimum. Consecutive roots
    that do not meet in time are tried in one order only (swapping them changes no offset).
    """
    ids = sorted((r for r in range(len(problem)) if problem.sizes[r]),
                 key=lambda r: (-problem.sizes[r], problem.first[r], r))
    if len(ids) > EXHAUSTIVE_LIMIT:
        return None
    rank = {r: k for k, r in enumerate(ids)}
    offsets: list[int | None] = [None if problem.sizes[r] else 0 for r in range(len(problem))]
    state = {"best": arena, "found": None, "budget": EXHAUSTIVE_BUDGET}

    def dfs(remaining: list[int], prev: int | None, end: int) -> bool:
        """Extend the partial plan; True when the search should stop."""
        if not remaining:
            state["best"], state["found"] = end, list(offsets)
            return end <= target
        for r in remaining:
            if prev is not None and rank[r] < rank[prev] and not problem.interferes(r, prev):
                continue
            if state["budget"] == 0:
                return True
            state["budget"] -= 1
            x = first_fit(forbidden_ranges(problem, r, offsets), problem.alignment)
            new_end = max(end, x + problem.sizes[r])
            if new_end >= state["best"]:
                continue
            offsets[r] = x
            stop = dfs([q for q in remaining if q != r], r, new_end)
            offsets[r] = None
            if stop:
                return True
        return False

    dfs(ids, None, 0)
    return None if state["found"] is None else (state["found"], state["best"])


def hill_climb(problem: Problem, order: list[int], fit, arena: int, target: int) -> tuple[list[int], int] | None:
    """Perturb the placement order (move a root at the arena's top earlier, or swap two) and keep what helps."""
    rounds = min(HILL_MAX_ROUNDS, HILL_WORK // max(1, len(problem)))
    rng = random.Random(HILL_SEED)
    order = list(order)
    offsets, current = place(problem, order, fit)
    best: tuple[list[int], int] | None = None
    for _ in range(rounds):
        if current <= target or len(order) < 2:
            break
        candidate = list(order)
        top = [k for k, r in enumerate(candidate) if offsets[r] + problem.sizes[r] == current and k > 0]
        if top and rng.random() < 0.5:
            k = rng.choice(top)
            candidate.insert(rng.randrange(k), candidate.pop(k))
        else:
            i, j = rng.sample(range(len(candidate)), 2)
            candidate[i], candidate[j] = candidate[j], candidate[i]
        new_offsets, new_arena = place(problem, candidate, fit)
        if new_arena <= current:
            order, offsets, current = candidate, new_offsets, new_arena
            if new_arena < arena and (best is None or new_arena < best[1]):
                best = (new_offsets, new_arena)
    return best
