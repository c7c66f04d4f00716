"""Linear-scan placement: buffers in a given order, each at an address free of the placed buffers it meets."""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from .bound import step_live_bytes
from .problem import Problem, align_up


#: Stands for an unbounded end of a range of offsets.
_FAR = 1 << 62


def _allowed_starts(problem: Problem, b: int, p: int, o: int) -> list[tuple[int, int]]:
    """Half-open ranges of start offsets for root b where a permission lets it overlap root p placed at o.

    b over p when floor(p, b) <= x - o <= margin(p, b); p over b when floor(b, p) <= o - x <= margin(b, p).
    """
    allowed = []
    over_p = problem.shifts(p, b)
    if over_p is not None:
        low, high = over_p
        allowed.append((-_FAR if low is None else o + low, o + high + 1))
    under_p = problem.shifts(b, p)
    if under_p is not None:
        low, high = under_p
        allowed.append((o - high, _FAR if low is None else o - low + 1))
    return allowed


def forbidden_ranges(problem: Problem, b: int, offsets: list[int | None]) -> list[tuple[int, int]]:
    """Half-open ranges [lo, hi) of start offsets for root b that collide with already placed roots.

    A placed root p at o blocks every x with o - size(b) < x < o + size(p), except where a permission lets the
    two overlap (see _allowed_starts).
    """
    ranges = []
    size_b = problem.sizes[b]
    partners = problem.partners.get(b, ())
    for p in problem.neighbors[b]:
        o = offsets[p]
        if o is None:
            continue
        if p not in partners:
            ranges.append((o - size_b + 1, o + problem.sizes[p]))
            continue
        pieces = [(o - size_b + 1, o + problem.sizes[p])]
        for start, stop in _allowed_starts(problem, b, p, o):
            pieces = [cut for lo, hi in pieces for cut in ((lo, min(hi, start)), (max(lo, stop), hi))]
        ranges += [(lo, hi) for lo, hi in pieces if lo < hi]
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


def _free(x: int, ranges: list[tuple[int, int]]) -> bool:
    """True when start offset x lies in none of the forbidden ranges."""
    return all(not lo <= x < hi for lo, hi in ranges)


def overlap_fit(problem: Problem, b: int, offsets: list[int | None], ranges: list[tuple[int, int]]) -> int | None:
    """The lowest free offset >= 0 where root b overlaps a placed permission partner as far as its window allows.

    That is the allowed shift nearest 0. First-fit alone would put an output low even when its permission wants it
    above the input it overwrites, and a chain of negative margins (depthwise convs) then has no room to go down.
    """
    candidates = []
    for p in problem.neighbors[b]:
        o = offsets[p]
        if o is None:
            continue
        for src, dst, sign in ((p, b, 1), (b, p, -1)):
            shift = problem.best_shift(src, dst)
            if shift is not None:
                candidates.append(o + sign * shift)
    return min((x for x in candidates if x >= 0 and _free(x, ranges)), default=None)


def _compatible(problem: Problem, a: int, b: int, xa: int, xb: int) -> bool:
    """True when roots a at xa and b at xb may coexist: apart in time or space, or overlapping as permitted."""
    if not problem.interferes(a, b) or xa + problem.sizes[a] <= xb or xb + problem.sizes[b] <= xa:
        return True
    for src, dst, shift in ((a, b, xb - xa), (b, a, xa - xb)):
        allowed = problem.shifts(src, dst)
        if allowed is not None and (allowed[0] is None or allowed[0] <= shift) and shift <= allowed[1]:
            return True
    return False


def floored(problem: Problem, src: int, dst: int) -> bool:
    """True when the permission src -> dst has a floor above 0: dst may overlap src only starting above it."""
    low = problem.shifts(src, dst)[0]  # type: ignore[index]
    return low is not None and low > 0


def overlap_units(problem: Problem, floored_links: bool = True, lasting_links: bool = True
                  ) -> tuple[list[list[int]], list[int]]:
    """Roots joined by permissions, each group with fixed relative offsets (normalized to >= 0), as units to place.

    Inside a group every permitted pair overlaps as far as its window allows (the shift nearest 0). A chain of
    in-place and depthwise kernels thus becomes one staircase: negative margins drift it downwards over time, so
    its members must be placed together, the first one high enough for the last one to fit above 0. A group whose
    offsets would make two other members collide is split back into single roots. Returns the units (lists of
    roots) and every root's offset relative to its unit's base.

    With floored_links False, a permission whose floor is above 0 joins no unit: its dst would sit at least the
    floor above its src, so a short-lived src (a stem conv's input) would hold the whole staircase up by the floor
    at the arena's peak; apart, the two may still overlap wherever placement finds room.

    With lasting_links False, a permission whose dst starts below its src and is still read after the step that
    follows its writing (a residual branch's input) joins no unit either: its negative shift would drag the chain
    that runs meanwhile down with it, while apart the two may still overlap where placement finds room.
    """
    parent = list(range(len(problem)))

    def find(x: int) -> int:
        """Union-find root."""
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    links: dict[int, list[tuple[int, int]]] = {}
    for src, dst in problem.windows:
        if not floored_links and floored(problem, src, dst):
            continue
        shift = problem.best_shift(src, dst)
        if not lasting_links and shift < 0 and problem.last[dst] > problem.first[dst] + 1:
            continue
        parent[find(src)] = find(dst)
        links.setdefault(src, []).append((dst, shift))
        links.setdefault(dst, []).append((src, -shift))
    groups: dict[int, list[int]] = {}
    for r in range(len(problem)):
        groups.setdefault(find(r), []).append(r)
    rel = [0] * len(problem)
    units = []
    for members in groups.values():
        seen = {members[0]}
        queue = [members[0]]
        for r in queue:
            for other, shift in links.get(r, ()):
                if other not in seen:
                    seen.add(other)
                    rel[other] = rel[r] + shift
                    queue.append(other)
        low = min(rel[m] for m in members)
        for m in members:
            rel[m] -= low
        if all(_compatible(problem, a, b, rel[a], rel[b]) for i, a in enumerate(members) for b in members[i + 1:]):
            units.append(members)
        else:
            units += [[m] for m in members]
            for m in members:
                rel[m] = 0
    return units, rel


def place_units(problem: Problem, order: list[int], fit, units: list[list[int]], rel: list[int]
                ) -> tuple[list[int], int]:
    """Offsets of every root and the arena: units placed whole (member m at base + rel[m]) in the order of their
    first member in `order`, each base chosen by `fit` among the bases where no member collides."""
    unit_of = {m: k for k, unit in enumerate(units) for m in unit}
    offsets: list[int | None] = [None] * len(problem)
    arena = 0
    done = set()
    for r in order:
        k = unit_of[r]
        if k in done:
            continue
        done.add(k)
        placed = [m for m in units[k] if problem.sizes[m]]
        if len(placed) == 1 and rel[placed[0]] == 0:
            ranges = forbidden_ranges(problem, placed[0], offsets)
        else:
            ranges = sorted((lo - rel[m], hi - rel[m])
                            for m in placed for lo, hi in forbidden_ranges(problem, m, offsets))
        base = fit(ranges, problem.alignment) if placed else 0
        for m in units[k]:
            offsets[m] = base + rel[m] if problem.sizes[m] else 0
            arena = max(arena, offsets[m] + problem.sizes[m])
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
        "end": sorted(ids, key=lambda r: (last[r], -size[r], r)),
        "conflicts": sorted(ids, key=lambda r: (-len(problem.neighbors[r]), -size[r], first[r], r)),
        "size x lifetime": sorted(ids, key=lambda r: (-size[r] * (last[r] - first[r] + 1), first[r], r)),
        "peak pressure": sorted(ids, key=lambda r: (-pressure[r], -size[r], first[r], r)),
    }


FITS = {"first-fit": first_fit, "best-fit": best_fit}
