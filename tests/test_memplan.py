"""Arena placement: property tests on random buffer sets, optimality on small ones, and input checking."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memplan import Buffer, Overlap, live_lower_bound, plan_arena
from memplan.placement import FITS, orderings, overlap_units, place_units
from memplan.problem import resolve
from memplan.search import exhaustive


def storage_root(name: str, by_name: dict[str, Buffer]) -> str:
    """The buffer that owns `name`'s bytes."""
    while by_name[name].alias_of is not None:
        name = by_name[name].alias_of
    return name


def hull(buffers: list[Buffer]) -> dict[str, tuple[int, int]]:
    """Lifetime of each storage root, covering all its aliases."""
    by_name = {b.name: b for b in buffers}
    spans: dict[str, tuple[int, int]] = {}
    for b in buffers:
        r = storage_root(b.name, by_name)
        lo, hi = spans.get(r, (b.first, b.last))
        spans[r] = (min(lo, b.first), max(hi, b.last))
    return spans


def shift_allowed(ov: Overlap, shift: int) -> bool:
    """True when offset(dst) - offset(src) = shift is inside the permission's floor .. margin."""
    return shift <= ov.margin and (ov.floor is None or shift >= ov.floor)


def overlap_allowed(a: Buffer, b: Buffer, offsets: dict[str, int], overlaps, by_name) -> bool:
    """True when some permission lets a and b share bytes where they are placed (Overlap's documented rule)."""
    ra, rb = storage_root(a.name, by_name), storage_root(b.name, by_name)
    for ov in overlaps:
        src, dst = storage_root(ov.src, by_name), storage_root(ov.dst, by_name)
        if {src, dst} == {ra, rb} and shift_allowed(ov, offsets[dst] - offsets[src]):
            return True
    return False


def check_plan(buffers: list[Buffer], alignment: int, overlaps=()) -> int:
    """Plan, assert every safety property, and return the arena size."""
    plan = plan_arena(buffers, alignment, overlaps)
    by_name = {b.name: b for b in buffers}
    assert set(plan.offsets) == set(by_name)
    for b in buffers:
        offset = plan.offsets[b.name]
        assert offset % alignment == 0, f"{b.name} at {offset} is not {alignment}-aligned"
        assert 0 <= offset and offset + b.size <= plan.arena_size, f"{b.name} lies outside the arena"
        assert offset == plan.offsets[storage_root(b.name, by_name)], f"alias {b.name} moved off its root"
    for a, b in combinations(buffers, 2):
        if storage_root(a.name, by_name) == storage_root(b.name, by_name) or not a.overlaps_in_time(b):
            continue
        oa, ob = plan.offsets[a.name], plan.offsets[b.name]
        if oa < ob + b.size and ob < oa + a.size and a.size and b.size:
            assert overlap_allowed(a, b, plan.offsets, overlaps, by_name), (
                f"{a.name}@{oa}+{a.size} and {b.name}@{ob}+{b.size} are both live and overlap")
    assert plan.lower_bound == live_lower_bound(buffers, alignment, overlaps)
    assert plan.arena_size >= plan.lower_bound
    assert plan.arena_size % alignment == 0
    return plan.arena_size


def plain_bound(buffers: list[Buffer], alignment: int) -> int:
    """Largest sum of aligned root sizes live at one step, computed directly."""
    by_name = {b.name: b for b in buffers}
    spans = hull(buffers)
    sizes: dict[str, int] = {}
    for b in buffers:
        r = storage_root(b.name, by_name)
        sizes[r] = max(sizes.get(r, 0), -(-b.size // alignment) * alignment)
    steps = {s for lo, hi in spans.values() for s in range(lo, hi + 1)}
    return max((sum(sizes[r] for r, (lo, hi) in spans.items() if lo <= s <= hi) for s in steps), default=0)


@st.composite
def buffer_sets(draw, max_buffers: int = 14, max_size: int = 300, max_step: int = 10):
    """Random buffers, some of them aliases of earlier ones, with permissions on some eligible pairs."""
    buffers: list[Buffer] = []
    for k in range(draw(st.integers(1, max_buffers))):
        first = draw(st.integers(0, max_step))
        last = first + draw(st.integers(0, 4))
        roots = [b.name for b in buffers if b.alias_of is None]
        alias = draw(st.sampled_from([None] + roots)) if roots and draw(st.integers(0, 4)) == 0 else None
        buffers.append(Buffer(f"b{k}", draw(st.integers(0, max_size)), first, last, alias))
    spans = hull(buffers)
    eligible = [(s, d) for s in spans for d in spans if s != d and spans[s][1] == spans[d][0]]
    chosen = draw(st.lists(st.sampled_from(eligible), unique=True, max_size=4)) if eligible else []
    overlaps = []
    for s, d in chosen:
        margin = draw(st.integers(-64, 64))
        floor = draw(st.one_of(st.none(), st.integers(margin - 64, margin)))
        overlaps.append(Overlap(s, d, margin, floor))
    return buffers, tuple(overlaps)


@settings(max_examples=300, deadline=None)
@given(buffer_sets(), st.sampled_from([1, 4, 16]))
def test_random_plans_are_safe_and_aligned(case, alignment):
    buffers, overlaps = case
    check_plan(buffers, alignment, overlaps)


@settings(max_examples=200, deadline=None)
@given(buffer_sets(), st.sampled_from([1, 16]))
def test_without_permissions_the_bound_is_the_largest_live_set(case, alignment):
    buffers, _ = case
    assert live_lower_bound(buffers, alignment) == plain_bound(buffers, alignment)
    check_plan(buffers, alignment)


@settings(max_examples=200, deadline=None)
@given(buffer_sets(), st.sampled_from([1, 16]))
def test_permissions_never_raise_the_bound(case, alignment):
    buffers, overlaps = case
    assert live_lower_bound(buffers, alignment, overlaps) <= live_lower_bound(buffers, alignment)


def optimal_arena(buffers: list[Buffer], alignment: int, overlaps=()) -> int:
    """The smallest arena over every aligned placement, by backtracking (tiny problems only)."""
    by_name = {b.name: b for b in buffers}
    spans = hull(buffers)
    roots = sorted(spans)
    size = {r: max(-(-b.size // alignment) * alignment for b in buffers if storage_root(b.name, by_name) == r)
            for r in roots}
    live_together = {(a, b) for a in roots for b in roots
                     if a != b and spans[a][0] <= spans[b][1] and spans[b][0] <= spans[a][1]}
    permits = {(storage_root(o.src, by_name), storage_root(o.dst, by_name)): o for o in overlaps}

    def permitted(src: str, dst: str, shift: int) -> bool:
        return (src, dst) in permits and shift_allowed(permits[src, dst], shift)

    def fits(arena: int) -> bool:
        offsets: dict[str, int] = {}

        def ok(r: str, x: int) -> bool:
            for p, o in offsets.items():
                if (r, p) in live_together and x < o + size[p] and o < x + size[r] and size[r] and size[p]:
                    if not (permitted(p, r, x - o) or permitted(r, p, o - x)):
                        return False
            return True

        def place(k: int) -> bool:
            if k == len(roots):
                return True
            r = roots[k]
            for x in range(0, arena - size[r] + 1, alignment):
                if ok(r, x):
                    offsets[r] = x
                    if place(k + 1):
                        return True
                    del offsets[r]
            return False

        return place(0)

    arena = 0
    while not fits(arena):
        arena += alignment
    return arena


@settings(max_examples=150, deadline=None)
@given(buffer_sets(max_buffers=6, max_size=48, max_step=4), st.sampled_from([8, 16]))
def test_small_problems_get_the_optimal_arena(case, alignment):
    buffers, overlaps = case
    best = optimal_arena(buffers, alignment, overlaps)
    assert live_lower_bound(buffers, alignment, overlaps) <= best
    arena = check_plan(buffers, alignment, overlaps)
    if not overlaps:
        assert arena == best


@settings(max_examples=100, deadline=None)
@given(buffer_sets(max_buffers=6, max_size=48, max_step=4), st.sampled_from([8, 16]))
def test_exhaustive_search_alone_finds_the_optimum(case, alignment):
    buffers, _ = case
    problem = resolve(buffers, (), alignment)
    free = [r for r in range(len(problem)) if problem.sizes[r]]
    found, _ = exhaustive(problem, free, [0] * len(problem), sum(problem.sizes) + 1, 0, 10**6)
    end = max((found[r] + problem.sizes[r] for r in free), default=0)
    assert end == optimal_arena(buffers, alignment)


def test_search_closes_the_gap_the_greedy_orders_leave():
    # Every ordering x fit gives 32 B here (found by random search); the optimum is 24 B.
    buffers = [Buffer("b0", 16, 1, 1), Buffer("b1", 8, 2, 4), Buffer("b2", 16, 4, 4), Buffer("b3", 8, 0, 3)]
    plan = plan_arena(buffers, 8)
    assert plan.arena_size == plan.lower_bound == optimal_arena(buffers, 8) == 24
    assert plan.method.startswith("exhaustive search")


def test_in_place_elementwise_chain_needs_one_buffer():
    buffers = [Buffer("x", 1000, 0, 1), Buffer("relu", 1000, 1, 2), Buffer("clip", 1000, 2, 3)]
    overlaps = (Overlap("x", "relu"), Overlap("relu", "clip"))
    plan = plan_arena(buffers, 16, overlaps)
    assert plan.arena_size == plan.lower_bound == 1008
    assert plan_arena(buffers, 16).arena_size == 2016


def test_depthwise_margin_gives_n_plus_scratch():
    # 8 channels of 100 bytes in and out, through a one-channel scratch: 2N becomes N + one channel.
    buffers = [Buffer("in", 800, 0, 1), Buffer("scratch", 112, 1, 1), Buffer("out", 800, 1, 2)]
    plan = plan_arena(buffers, 16, (Overlap("in", "out", margin=0),))
    assert plan.arena_size == plan.lower_bound == 800 + 112


def test_negative_margin_forces_the_output_below_the_input():
    buffers = [Buffer("in", 64, 0, 1), Buffer("out", 256, 1, 2)]
    plan = plan_arena(buffers, 16, (Overlap("in", "out", margin=-192),))
    assert plan.offsets["out"] - plan.offsets["in"] <= -192
    assert plan.arena_size == plan.lower_bound == 256


def test_exact_window_puts_the_output_on_the_input():
    # A pointwise conv pixel by pixel: out may sit exactly on in (floor = margin = 0), nowhere else over it.
    buffers = [Buffer("in", 800, 0, 1), Buffer("scratch", 64, 1, 1), Buffer("out", 800, 1, 2)]
    plan = plan_arena(buffers, 16, (Overlap("in", "out", margin=0, floor=0),))
    assert plan.offsets["out"] == plan.offsets["in"]
    assert plan.arena_size == plan.lower_bound == 864


def test_a_floor_keeps_the_output_from_starting_lower():
    buffers = [Buffer("in", 256, 0, 1), Buffer("out", 256, 1, 2)]
    plan = plan_arena(buffers, 16, (Overlap("in", "out", margin=64, floor=40),))
    assert plan.offsets["out"] - plan.offsets["in"] == 48
    assert plan.arena_size == plan.lower_bound == 304


def test_a_window_narrower_than_the_alignment_allows_no_overlap():
    buffers = [Buffer("in", 256, 0, 1), Buffer("out", 256, 1, 2)]
    plan = plan_arena(buffers, 16, (Overlap("in", "out", margin=12, floor=4),))
    assert plan.arena_size == plan.lower_bound == 512


def test_a_depthwise_staircase_starts_high_enough_to_reach_the_bound():
    # KWS: a small input, then depthwise (margin -6: the output starts 16 B lower) and pointwise (exactly in place)
    # convs in turn; the chain drifts down 16 B per depthwise conv, so its first buffer must sit above the input.
    buffers = [Buffer("input", 490, 0, 0), Buffer("t0", 8000, 0, 1)]
    overlaps = []
    for k in range(1, 9):
        buffers.append(Buffer(f"t{k}", 8000, k, k + 1))
        overlaps.append(Overlap(f"t{k - 1}", f"t{k}", -6) if k % 2 else Overlap(f"t{k - 1}", f"t{k}", 0, 0))
        if k % 2 == 0:
            buffers.append(Buffer(f"scratch{k}", 64, k, k))
    plan = plan_arena(buffers, 16, tuple(overlaps))
    assert plan.arena_size == plan.lower_bound == 496 + 8000
    assert check_plan(buffers, 16, tuple(overlaps)) == plan.arena_size


def stem_and_residual_blocks() -> tuple[list[Buffer], tuple[Overlap, ...]]:
    """MobileNetV2's start with int8 I/O: the stem conv may overlap its NHWC input only from 176 B up (floor), its
    output stays live over an inverted residual block whose depthwise conv drifts 32 B down, and the next block's
    expand (floor 32) and depthwise (-48) chain on from the residual Add."""
    buffers = [Buffer("input", 12288, 0, 0), Buffer("x", 12288, 0, 1), Buffer("scratch", 64, 1, 1),
               Buffer("stem", 16384, 1, 5), Buffer("expand", 65536, 2, 3), Buffer("relu", 65536, 3, 4),
               Buffer("dw", 16384, 4, 5), Buffer("add", 16384, 5, 6), Buffer("expand2", 65536, 6, 7),
               Buffer("dw2", 16384, 7, 8)]
    overlaps = (Overlap("x", "stem", 12288, 172), Overlap("expand", "relu", 0, 0), Overlap("relu", "dw", -32),
                Overlap("stem", "add", 0), Overlap("add", "expand2", 16384, 32), Overlap("expand2", "dw2", -48))
    return buffers, overlaps


def test_units_apart_at_floors_let_a_floored_input_leave_the_peak():
    # Linked at the floor, the stem's input sits 176 B under the chain's lowest member, so the chain at the peak
    # (stem over expand/relu over dw) starts 176 B up whatever the order; apart, greedy placement reaches the bound.
    buffers, overlaps = stem_and_residual_blocks()
    problem = resolve(buffers, overlaps, 16)
    bound = live_lower_bound(buffers, 16, overlaps)
    assert bound == 16384 + 65536 + 32

    def greedy_best(units_rel) -> int:
        return min(place_units(problem, order, fit, *units_rel)[1]
                   for order in orderings(problem).values() for fit in FITS.values())

    assert greedy_best(overlap_units(problem)) == bound + 176
    assert greedy_best(overlap_units(problem, floored_links=False)) == bound
    assert check_plan(buffers, 16, overlaps) == bound


def test_permissions_for_the_same_pair_keep_the_wider_window():
    buffers = [Buffer("in", 256, 0, 1), Buffer("out", 256, 1, 2)]
    plan = plan_arena(buffers, 16, (Overlap("in", "out", 0, 0), Overlap("in", "out", 32)))
    assert plan.arena_size == 256
    with pytest.raises(ValueError, match="neither inside the other"):
        plan_arena(buffers, 16, (Overlap("in", "out", 0, 0), Overlap("in", "out", 64, 32)))


def test_aliases_share_their_roots_storage_and_extend_its_life():
    buffers = [Buffer("conv", 512, 0, 1), Buffer("flat", 512, 1, 3, alias_of="conv"), Buffer("other", 512, 2, 3)]
    plan = plan_arena(buffers)
    assert plan.offsets["flat"] == plan.offsets["conv"]
    assert plan.offsets["other"] != plan.offsets["conv"]
    assert plan.arena_size == 1024


def test_equal_sizes_in_start_order_reach_the_bound_where_size_order_does_not():
    # TFLM's VWW case: equal-size buffers taken in reverse order leave holes; trying start order fixes it.
    buffers = [Buffer(f"t{k}", 96, k, k + 1) for k in range(6)] + [Buffer("skip", 48, 0, 5)]
    plan = plan_arena(buffers)
    assert plan.arena_size == plan.lower_bound


def test_long_chain_reaches_the_bound_quickly():
    buffers = [Buffer(f"t{k}", 1024 * (1 + k % 4), k, k + 1 + (k % 3 == 0) * 2) for k in range(600)]
    plan = plan_arena(buffers)
    assert plan.arena_size == plan.lower_bound


@pytest.mark.parametrize("buffers, overlaps, message", [
    ([Buffer("a", 4, 0, 1), Buffer("a", 4, 1, 2)], (), "named 'a'"),
    ([Buffer("a", -1, 0, 1)], (), "size -1"),
    ([Buffer("a", 4, 2, 1)], (), "first <= last"),
    ([Buffer("a", 4, 0, 1, alias_of="nope")], (), "'nope', which is not among"),
    ([Buffer("a", 4, 0, 1, alias_of="b"), Buffer("b", 4, 0, 1, alias_of="a")], (), "cycle"),
    ([Buffer("a", 4, 0, 2), Buffer("b", 4, 1, 2)], (Overlap("a", "b"),), "is unsafe"),
    ([Buffer("a", 4, 0, 1)], (Overlap("a", "zz"),), "'zz', which is not among"),
])
def test_bad_input_is_rejected_with_a_clear_message(buffers, overlaps, message):
    with pytest.raises(ValueError, match=message):
        plan_arena(buffers, 16, overlaps)


def test_bad_alignment_is_rejected():
    with pytest.raises(ValueError, match="Alignment"):
        plan_arena([Buffer("a", 4, 0, 1)], 0)
