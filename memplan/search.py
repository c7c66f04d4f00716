"""Closing the gap to the live-set bound: exhaustive search over placement orders, whole or in time windows.

Searches are bounded by counts of placements tried, never by wall-clock time, so a model always compiles to the
same arena.
"""

from __future__ import annotations

from .placement import first_fit, forbidden_ranges, overlap_fit
from .problem import Problem

#: The exhaustive search re-places at most this many roots at once.
EXHAUSTIVE_LIMIT = 24
#: Placements one exhaustive search may try.
SEARCH_BUDGET = 4_000
#: Placements all window repairs of one problem may try together.
REPAIR_BUDGET = 60_000
#: Half-widths, in steps, of the time windows re-placed around a root that ends above the target.
REPAIR_WINDOWS = (1, 2, 4, 8)


def _end(problem: Problem, offsets: list[int | None], roots) -> int:
    """The highest end address among placed roots."""
    return max((offsets[r] + problem.sizes[r] for r in roots if offsets[r] is not None), default=0)


def exhaustive(problem: Problem, free: list[int], offsets: list[int | None], limit: int, target: int,
               budget: int) -> tuple[list[int | None], int]:
    """Re-place the roots in `free` by first-fit over their placement orders, depth first.

    Roots not in `free` keep their offsets (None: absent). Returns offsets where every free root ends below
    `limit`, as low as found, stopping early at `target`, or None in place of offsets when none was found; and
    the placements left of `budget`. Without overlap permissions the search is complete: placing an optimal plan's
    roots by increasing offset with first-fit puts each at or below its optimal offset. With permissions, each
    root is also tried at its overlap_fit offset. Consecutive roots that do not meet in time are tried in one
    order only (swapping them changes no offset).
    """
    ids = sorted(free, key=lambda r: (-problem.sizes[r], problem.first[r], r))
    rank = {r: k for k, r in enumerate(ids)}
    offsets = list(offsets)
    for r in ids:
        offsets[r] = None
    state = {"best": limit, "found": None, "budget": budget}

    def dfs(remaining: list[int], prev: int | None, end: int) -> bool:
        """Extend the partial plan; True when the search should stop."""
        if not remaining:
            state["best"], state["found"] = end, list(offsets)
            return end <= target
        for r in remaining:
            if prev is not None and rank[r] < rank[prev] and not problem.interferes(r, prev):
                continue
            if state["budget"] <= 0:
                return True
            state["budget"] -= 1
            ranges = forbidden_ranges(problem, r, offsets)
            fits = {first_fit(ranges, problem.alignment), overlap_fit(problem, r, offsets, ranges)}
            for x in sorted(x for x in fits if x is not None):
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
    return state["found"], state["budget"]


def repair(problem: Problem, offsets: list[int], target: int) -> list[int]:
    """Re-place the roots live near each root that ends above `target`, in widening time windows."""
    offsets = list(offsets)
    budget = REPAIR_BUDGET
    placed = [r for r in range(len(problem)) if problem.sizes[r]]
    for half in REPAIR_WINDOWS:
        high = sorted((r for r in placed if offsets[r] + problem.sizes[r] > target),
                      key=lambda r: (problem.first[r], r))
        for v in high:
            if offsets[v] + problem.sizes[v] <= target or budget <= 0:
                continue
            lo, hi = problem.first[v] - half, problem.last[v] + half
            window = [r for r in placed if problem.first[r] <= hi and problem.last[r] >= lo]
            if len(window) > EXHAUSTIVE_LIMIT:
                continue
            found, left = exhaustive(problem, window, offsets, _end(problem, offsets, window), target,
                                     min(budget, SEARCH_BUDGET))
            budget -= min(budget, SEARCH_BUDGET) - left
            if found is not None:
                offsets = found  # type: ignore[assignment]
    return offsets


def search(problem: Problem, offsets: list[int], arena: int, target: int) -> tuple[list[int], int, str] | None:
    """A plan smaller than `arena` (reaching `target` when found), and how it was found; None when none was."""
    placed = [r for r in range(len(problem)) if problem.sizes[r]]
    if len(placed) <= EXHAUSTIVE_LIMIT:
        found, _ = exhaustive(problem, placed, offsets, arena, target, REPAIR_BUDGET)
        return None if found is None else (found, _end(problem, found, placed), "exhaustive search")  # type: ignore
    repaired = repair(problem, offsets, target)
    end = _end(problem, repaired, placed)
    return (repaired, end, "windowed exhaustive repair") if end < arena else None
