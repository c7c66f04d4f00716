"""The live-set lower bound: no placement, with or without overlap permissions, needs fewer bytes."""

from __future__ import annotations

from bisect import bisect_right
from itertools import combinations

from .problem import Problem

#: Components of overlap permissions up to this many buffers get an exact bound; larger ones a looser one.
EXACT_COMPONENT_LIMIT = 14


def _pair_bound(problem: Problem, a: int, b: int) -> int:
    """Fewest bytes two buffers linked by a permission can cover (the span of their union)."""
    spans = [problem.sizes[a] + problem.sizes[b]]
    for src, dst in ((a, b), (b, a)):
        shift = problem.best_shift(src, dst)
        if shift is not None:
            spans.append(max(problem.sizes[src], shift + problem.sizes[dst]) - min(0, shift))
    return min(spans)


def _component_bound(problem: Problem, members: list[int], linked: set[tuple[int, int]]) -> int:
    """Bytes a set of buffers joined by permissions needs at least.

    Buffers with no permission between them cannot share bytes, so the heaviest such subset is a bound.
    """
    if len(members) == 2:
        return _pair_bound(problem, *members)
    if len(members) > EXACT_COMPONENT_LIMIT:
        return max(problem.sizes[m] for m in members)
    best = 0
    for count in range(1, len(members) + 1):
        for subset in combinations(members, count):
            if all((a, b) not in linked and (b, a) not in linked for a, b in combinations(subset, 2)):
                best = max(best, sum(problem.sizes[m] for m in subset))
    return best


def _permission_savings(problem: Problem) -> dict[int, int]:
    """Per step, how many bytes overlap permissions can save at most below the plain live sum."""
    by_step: dict[int, list[tuple[int, int]]] = {}
    for src, dst in problem.windows:
        by_step.setdefault(problem.first[dst], []).append((src, dst))
    savings = {}
    for step, pairs in by_step.items():
        parent: dict[int, int] = {}

        def find(x: int) -> int:
            """Union-find root."""
            while parent.setdefault(x, x) != x:
                x = parent[x]
            return x

        for src, dst in pairs:
            parent[find(src)] = find(dst)
        components: dict[int, list[int]] = {}
        for x in sorted(parent):
            components.setdefault(find(x), []).append(x)
        linked = set(pairs)
        savings[step] = sum(
            sum(problem.sizes[m] for m in members) - _component_bound(problem, members, linked)
            for members in components.values()
        )
    return savings


def step_live_bytes(problem: Problem) -> dict[int, int]:
    """Aligned bytes live at every step where some buffer starts (the live sum only grows there)."""
    steps = sorted(set(problem.first))
    delta = [0] * (len(steps) + 1)
    for r, size in enumerate(problem.sizes):
        lo = bisect_right(steps, problem.first[r]) - 1
        hi = bisect_right(steps, problem.last[r])
        delta[lo] += size
        delta[hi] -= size
    live, total = {}, 0
    for k, step in enumerate(steps):
        total += delta[k]
        live[step] = total
    return live


def problem_lower_bound(problem: Problem) -> int:
    """The largest live set at any step, less what overlap permissions can save at that step."""
    live = step_live_bytes(problem)
    savings = _permission_savings(problem)
    return max((total - savings.get(step, 0) for step, total in live.items()), default=0)
