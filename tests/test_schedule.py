"""The memory-aware scheduler: exact optimum on graphs small enough to enumerate, never worse than the model order."""

from __future__ import annotations

import time

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper

from mcucomp.ir import Graph, Node, Tensor
from mcucomp.memory import plan_memory
from mcucomp.pipeline import kernel_calls, plan_model, scratch_sizes
from mcucomp.schedule import choose_schedule, model_order, order_peak

from kernels.helpers import infer_outputs, make_model

CONV = "gemm_f32"     # any registry op that neither aliases nor overlaps its input
VIEW = "reshape"      # the registry's alias op


def build(sizes: dict[str, int], nodes: list[tuple[str, str, list[str], list[str]]], inputs: list[str],
          outputs: list[str]) -> Graph:
    """An IR graph of int8 activations with the given byte sizes and (name, op, inputs, outputs) nodes."""
    tensors = {name: Tensor(name, (size,), "int8") for name, size in sizes.items()}
    return Graph(tensors, [Node(n, op, list(i), list(o)) for n, op, i, o in nodes], inputs, outputs)


def topological_orders(g: Graph):
    """Every topological order of g's nodes (for graphs small enough to enumerate)."""
    producer = {t: n.name for n in g.nodes for t in n.outputs}
    preds = {n.name: {producer[i] for i in n.inputs if i in producer} for n in g.nodes}
    by_name = {n.name: n for n in g.nodes}

    def extend(prefix: list[str], done: set[str]):
        if len(prefix) == len(g.nodes):
            yield [by_name[n] for n in prefix]
            return
        for n in g.nodes:
            if n.name not in done and preds[n.name] <= done:
                yield from extend(prefix + [n.name], done | {n.name})

    yield from extend([], set())


def brute_force_peak(g: Graph, **memory) -> int:
    """The lowest peak over all topological orders."""
    return min(order_peak(g, order, **memory) for order in topological_orders(g))


def assert_optimal(g: Graph, **memory) -> None:
    """The chosen order is topological, exact, equal to the brute-force optimum and no worse than the model order."""
    result = choose_schedule(g, **memory)
    names = [n.name for n in result.order]
    assert sorted(names) == sorted(n.name for n in g.nodes)
    assert names in [[n.name for n in o] for o in topological_orders(g)]
    assert result.exact
    assert result.peak == order_peak(g, result.order, **memory)
    assert result.model_order_peak == order_peak(g, model_order(g), **memory)
    assert result.peak <= result.model_order_peak
    assert result.peak == brute_force_peak(g, **memory)


def inception_cell() -> Graph:
    """Four parallel branches (1x1; 1x1→3x3; 1x1→5x5; pool→1x1) concatenated, listed breadth first."""
    sizes = {"x": 4096, "b1": 1024, "r3": 3072, "b3": 2048, "r5": 2048, "b5": 512, "p": 4096, "bp": 512,
             "cat": 4096, "y": 1024}
    nodes = [
        ("reduce3", CONV, ["x"], ["r3"]), ("reduce5", CONV, ["x"], ["r5"]), ("pool", CONV, ["x"], ["p"]),
        ("conv1", CONV, ["x"], ["b1"]), ("conv3", CONV, ["r3"], ["b3"]), ("conv5", CONV, ["r5"], ["b5"]),
        ("proj", CONV, ["p"], ["bp"]), ("concat", CONV, ["b1", "b3", "b5", "bp"], ["cat"]),
        ("head", CONV, ["cat"], ["y"]),
    ]
    return build(sizes, nodes, ["x"], ["y"])


def mcunet_cell() -> Graph:
    """Two inverted-residual branches (expand → depthwise → project) of different widths, added to the input."""
    sizes = {"x": 2048, "e1": 12288, "d1": 12288, "p1": 2048, "e2": 6144, "d2": 6144, "p2": 2048, "s": 2048,
             "v": 2048, "y": 2048}
    nodes = [
        ("expand1", CONV, ["x"], ["e1"]), ("expand2", CONV, ["x"], ["e2"]),
        ("dw1", CONV, ["e1"], ["d1"]), ("dw2", CONV, ["e2"], ["d2"]),
        ("project1", CONV, ["d1"], ["p1"]), ("project2", CONV, ["d2"], ["p2"]),
        ("sum", CONV, ["p1", "p2"], ["s"]), ("flatten", VIEW, ["s"], ["v"]), ("residual", CONV, ["x", "v"], ["y"]),
    ]
    return build(sizes, nodes, ["x"], ["y"])


def test_inception_cell_is_optimal_and_beats_the_model_order():
    g = inception_cell()
    assert_optimal(g, alignment=16)
    result = choose_schedule(g)
    assert result.peak < result.model_order_peak


def test_mcunet_cell_is_optimal_and_beats_the_model_order():
    g = mcunet_cell()
    assert_optimal(g, alignment=16)
    assert_optimal(g, alignment=16, io_in_arena=False)
    result = choose_schedule(g)
    assert result.peak < result.model_order_peak


def test_scratch_changes_the_optimum():
    g = inception_cell()
    assert_optimal(g, scratch_sizes={"conv5": 9000, "pool": 500}, alignment=4)


def test_model_order_is_kept_when_it_is_already_optimal():
    sizes = {"x": 64, "a": 64, "b": 64, "y": 64}
    g = build(sizes, [("n1", CONV, ["x"], ["a"]), ("n2", CONV, ["a"], ["b"]), ("n3", CONV, ["b"], ["y"])],
              ["x"], ["y"])
    assert [n.name for n in choose_schedule(g).order] == ["n1", "n2", "n3"]


@st.composite
def random_dags(draw):
    """Small DAGs of conv-like and view nodes, listed in a random (possibly non-topological) order."""
    count = draw(st.integers(2, 7))
    sizes = {"x": draw(st.integers(1, 300))}
    nodes = []
    for k in range(count):
        available = list(sizes)
        op = draw(st.sampled_from([CONV, CONV, VIEW]))
        width = 1 if op == VIEW else draw(st.integers(1, min(3, len(available))))
        inputs = draw(st.lists(st.sampled_from(available), min_size=width, max_size=width, unique=True))
        out = f"t{k}"
        sizes[out] = sizes[inputs[0]] if op == VIEW else draw(st.integers(1, 300))
        nodes.append((f"n{k}", op, inputs, [out]))
    read = {i for _, _, ins, _ in nodes for i in ins}
    outputs = [o for _, _, _, outs in nodes for o in outs if o not in read] or [nodes[-1][3][0]]
    listed = draw(st.permutations(nodes))
    return build(sizes, listed, ["x"], outputs)


@settings(max_examples=120, deadline=None)
@given(random_dags(), st.sampled_from([1, 16]), st.booleans(),
       st.dictionaries(st.sampled_from([f"n{k}" for k in range(7)]), st.integers(1, 200), max_size=2))
def test_random_dags_get_the_brute_force_optimum(g, alignment, io_in_arena, scratch):
    assert_optimal(g, alignment=alignment, io_in_arena=io_in_arena, scratch_sizes=scratch)


@settings(max_examples=60, deadline=None)
@given(random_dags(), st.sampled_from([1, 16]), st.booleans())
def test_peak_matches_the_memory_planners_live_set_bound(g, alignment, io_in_arena):
    result = choose_schedule(g, io_in_arena=io_in_arena, alignment=alignment)
    layout = plan_memory(g, result.order, {}, io_in_arena, alignment)
    assert layout.lower_bound == result.peak
    assert layout.arena_size >= result.peak


def wide_graph(branches: int, depth: int) -> Graph:
    """`branches` parallel chains of `depth` nodes from one input, summed pairwise at the end."""
    sizes, nodes = {"x": 1024}, []
    ends = []
    for b in range(branches):
        prev = "x"
        for d in range(depth):
            out = f"b{b}_{d}"
            sizes[out] = 256 * (1 + (b * 7 + d * 3) % 5)
            nodes.append((out, CONV, [prev], [out]))
            prev = out
        ends.append(prev)
    while len(ends) > 1:
        out = f"sum{len(nodes)}"
        sizes[out] = 256
        nodes.append((out, CONV, ends[:2], [out]))
        ends = ends[2:] + [out]
    return build(sizes, nodes, ["x"], ends)


def test_graph_too_wide_for_the_exact_search_falls_back_to_beam_search():
    g = wide_graph(branches=12, depth=6)
    start = time.perf_counter()
    result = choose_schedule(g)
    elapsed = time.perf_counter() - start
    assert not result.exact
    assert result.peak <= result.model_order_peak
    assert result.peak == order_peak(g, result.order)
    assert elapsed < 20, f"scheduling a 12-branch graph took {elapsed:.1f} s"


def chain_with_skips(count: int) -> Graph:
    """A ResNet-like chain of `count` nodes: every third node adds a skip connection from three nodes back."""
    sizes, nodes, prev = {"x": 4096}, [], "x"
    for k in range(count):
        out = f"t{k}"
        sizes[out] = 1024 * (1 + k % 4)
        inputs = [prev] + ([f"t{k - 3}"] if k % 3 == 2 and k >= 3 else [])
        nodes.append((f"n{k}", VIEW if k % 10 == 9 and len(inputs) == 1 else CONV, inputs, [out]))
        if nodes[-1][1] == VIEW:
            sizes[out] = sizes[prev]
        prev = out
    return build(sizes, nodes, ["x"], [prev])


def test_scheduling_and_planning_500_nodes_is_fast():
    g = chain_with_skips(500)
    start = time.perf_counter()
    result = choose_schedule(g)
    layout = plan_memory(g, result.order, {}, True, 16)
    elapsed = time.perf_counter() - start
    assert result.peak <= result.model_order_peak
    assert layout.arena_size == layout.lower_bound == result.peak
    assert elapsed < 10, f"scheduling and planning 500 nodes took {elapsed:.1f} s (target < 2 s)"


def inception_onnx_cell() -> onnx.ModelProto:
    """A float Inception cell as an exporter lists it, breadth first: 1x1; 1x1 (wide) -> 3x3; pool -> 1x1; concat;
    1x1 head. The 1x1 convs ask for a scratch (pixel by pixel), so the optimum depends on the real scratch sizes."""
    rng = np.random.default_rng(0)
    n = helper.make_node
    nodes = [n("Conv", ["x", "w1"], ["b1"], name="conv1"), n("Conv", ["x", "wr3"], ["r3"], name="reduce3"),
             n("MaxPool", ["x"], ["p"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="pool"),
             n("Conv", ["r3", "w3"], ["b3"], pads=[1, 1, 1, 1], name="conv3"),
             n("Conv", ["p", "wp"], ["bp"], name="proj"),
             n("Concat", ["b1", "b3", "bp"], ["cat"], axis=1, name="concat"),
             n("Conv", ["cat", "wy"], ["y"], name="head")]
    inits = {name: (rng.standard_normal(shape) * 0.3).astype(np.float32) for name, shape in (
        ("w1", (4, 8, 1, 1)), ("wr3", (24, 8, 1, 1)), ("w3", (8, 24, 3, 3)), ("wp", (4, 8, 1, 1)),
        ("wy", (8, 16, 1, 1)))}
    inputs = {"x": (np.float32, (1, 8, 8, 8))}
    return make_model(nodes, inputs, {"y": infer_outputs(nodes, inputs, inits)["y"]}, inits)


@pytest.mark.parametrize("io", ["arena", "caller"])
def test_compiled_irregular_cell_gets_the_optimum_with_real_scratch(io):
    planned = plan_model(inception_onnx_cell(), name="m", io=io)
    g, layout = planned.graph, planned.layout
    memory = {"scratch_sizes": scratch_sizes(kernel_calls(g, g.nodes)), "io_in_arena": io == "arena",
              "alignment": planned.board["alignment"]}
    assert memory["scratch_sizes"]
    assert layout.order_peak == order_peak(g, planned.order, **memory) == brute_force_peak(g, **memory)
    assert layout.file_order_peak == order_peak(g, model_order(g), **memory)
    assert layout.order_peak < layout.file_order_peak
    assert layout.order_peak == layout.lower_bound == max(layout.live_bytes)
