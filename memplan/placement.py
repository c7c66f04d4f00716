"""Linear-scan placement: buffers in a given order, each at an address free of the placed buffers it meets."""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from .bound import step_live_bytes
from .problem import Problem, align_up


def forbidden_ranges(problem: Problem, b: int, offsets: list[int | None]) -> list[tuple[int, int]]:
    """Half-open ranges [lo, hi) of start offsets for root b that collide with already placed roots.

    A placed root p at o blocks every x with o - size(b) < x < o + size(p), except where a permission lets the
    two overlap: b over p when x - o <= margin(p, b), p over b when o - x <= margin(b, p).
    """
    ranges = []
    size_b = problem.sizes[b]
    for p in problem.neighbors[b]:
        o = offsets[p]
        if o is None:
            continue
        lo, hi = o - size_b + 1, o + problem.sizes[p]
        if (p, b) in problem.margins:
            lo = max(lo, o + problem.margins[p, b] + 1)
        if (b, p) in problem.margins:
            hi = min(hi, o - problem.margins[b, p])
        if lo < hi:
            ranges.append((lo, hi))
    ranges.sort()
    return ranges


def first_fit(ranges: list[tuple[int, int]], alignment: int) -> int:
    """The lowest aligned offset >= 0 outside every forbidden range (ranges sorted by start)."""
    x = 0
    for lo, hi in ranges:
        if x < lo:
            break
        if x < hi:
            x = align_up(hi, alignment)
    return x


def best_fit(ranges: list[tuple[int, int]], alignment: int) -> int:
    """The lowest offset of the tightest bounded free gap that fits; above everything when no gap fits."""
    best, best_slack = None, None
    x = 0
    for lo, hi in ranges:
        top = (lo - 1) // alignment * alignment
        if x <= top and (best_slack is None or top - x < best_slack):
            best, best_slack = x, top - x
        x = max(x, align_up(hi, alignment))
    return x if best is None else best


def place(problem: Problem, order: list[int], fit) -> tuple[list[int], int]:
    """Offsets of every root placed in `order` with `fit`, and the arena size they need."""
    offsets: list[int | None] = [None] * len(problem)
    arena = 0
    for b in order:
        if problem.sizes[b] == 0:
            offsets[b] = 0
            continue
        x = fit(forbidden_ranges(problem, b, offsets), problem.alignment)
        offsets[b] = x
        arena = max(arena, x + problem.sizes[b])
    return offsets, arena  # type: ignore[return-value]


def _peak_pressure(problem: Problem) -> list[int]:
    """For each root, the largest plain live sum over its lifetime: roots at the peak should go first."""
    live = step_live_bytes(problem)
    steps = list(live)
    totals = list(live.values())
    return [max(totals[bisect_left(steps, problem.first[r]):bisect_right(steps, problem.last[r])])
            for r in range(len(problem))]


def orderings(problem: Problem) -> dict[str, list[int]]:
    """The placement orders tried, by name; ties are broken by start step and index, so results are stable."""
    ids = range(len(problem))
    size, first, last = problem.sizes, problem.first, problem.last
    pressure = _peak_pressure(problem)
    return {
        "size": sorted(ids, key=lambda r: (-size[r], first[r], r)),
        "start": sorted(ids, key=lambda r: (first[r], -size[r], r)),
        "conflicts": sorted(ids, key=lambda r: (-len(problem.neighbors[r]), -size[r], first[r], r)),
        "size x lifetime": sorted(ids, key=lambda r: (-size[r] * (last[r] - first[r] + 1), first[r], r)),
        "peak pressure": sorted(ids, key=lambda r: (-pressure[r], -size[r], first[r], r)),
    }


FITS = {"first-fit": first_fit, "best-fit": best_fit}
