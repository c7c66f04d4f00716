"""Offset assignment in one arena: buffers live at the same step never overlap unless a permission allows it."""

from __future__ import annotations

from dataclasses import dataclass

from .bound import problem_lower_bound
from .placement import FITS, floored, orderings, overlap_units, place_units
from .problem import Buffer, Overlap, resolve
from .search import search


@dataclass
class Plan:
    """Offsets by buffer name (aliases included), the arena size, the live-set bound and how the plan was found."""

    offsets: dict[str, int]
    arena_size: int
    lower_bound: int = 0
    method: str = ""


def live_lower_bound(buffers: list[Buffer], alignment: int = 16, overlaps: tuple[Overlap, ...] = ()) -> int:
    """The largest sum of aligned sizes live at one step, less what overlap permissions can save there."""
    return problem_lower_bound(resolve(buffers, overlaps, alignment))


def plan_arena(buffers: list[Buffer], alignment: int = 16, overlaps: tuple[Overlap, ...] = ()) -> Plan:
    """Smallest arena over several placement orders and fits; search further when above the live-set bound."""
    problem = resolve(buffers, overlaps, alignment)
    bound = problem_lower_bound(problem)
    singles = ([[r] for r in range(len(problem))], [0] * len(problem))
    # overlap units first: on a tie, the plan that overlaps wherever it may wins
    groupings = {"overlap units, ": overlap_units(problem),
                 "overlap units, lasting outputs apart, ": overlap_units(problem, lasting_links=False),
                 "": singles} if problem.windows else {"": singles}
    # tried last, so it wins only when strictly smaller: a floored input need not hold its whole chain up
    if any(floored(problem, src, dst) for src, dst in problem.windows):
        groupings["overlap units apart at floors, "] = overlap_units(problem, floored_links=False)
    best = None
    for unit_name, (units, rel) in groupings.items():
        for order_name, order in orderings(problem).items():
            for fit_name, fit in FITS.items():
                offsets, arena = place_units(problem, order, fit, units, rel)
                if best is None or arena < best[1]:
                    best = (offsets, arena, f"{unit_name}{fit_name} by {order_name}")
    offsets, arena, method = best  # type: ignore[misc]
    if arena > bound:
        found = search(problem, offsets, arena, bound)
        if found is not None:
            offsets, arena, how = found
            method = f"{how} after {method}"
    return Plan({b.name: offsets[problem.root_of[b.name]] for b in buffers}, arena, bound, method)
