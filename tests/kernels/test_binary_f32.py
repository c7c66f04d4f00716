"""binary_f32 against onnxruntime (exact): Add/Sub/Mul/Div/Max/Min/Mod with every broadcasting pattern and special
values, and the variadic Sum/Mean/Max/Min."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers import check_nodes, check_nodes_with_reference, rand

# (a shape, b shape): same, scalar, row, column, rank-mismatched, both-sided broadcast, 1x1 images
SHAPES = [
    ((2, 3, 5), (2, 3, 5)),
    ((2, 3, 5), ()),
    ((), (3, 5)),
    ((3, 7), (7,)),
    ((3, 7), (3, 1)),
    ((2, 3, 4, 5), (3, 1, 5)),
    ((5, 1, 3), (1, 7, 1)),
    ((1, 3, 1, 1), (1, 3, 1, 1)),
]


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
def test_binary_broadcasting(op, tmp_path):
    rng = np.random.default_rng(30)
    nodes, inputs, feeds, inits = [], {}, {}, {}
    for i, (sa, sb) in enumerate(SHAPES):
        for side, shp in (("a", sa), ("b", sb)):
            if shp == ():  # scalars as constants: the host runner feeds arrays of rank >= 1
                inits[f"{side}{i}"] = np.float32(rng.standard_normal())
                continue
            inputs[f"{side}{i}"] = (np.float32, shp)
            feeds[f"{side}{i}"] = rand(rng, *shp)
        nodes.append(helper.make_node(op, [f"a{i}", f"b{i}"], [f"y{i}"]))
    check_nodes(nodes, inputs, feeds, tmp_path, initializers=inits, exact=True)


def test_binary_constant_operand(tmp_path):
    """A constant second operand (e.g. a bias or normalisation scale) broadcast over channels."""
    rng = np.random.default_rng(31)
    node = helper.make_node("Div", ["x", "s"], ["y"])
    check_nodes([node], {"x": (np.float32, (1, 5, 3, 3))}, {"x": rand(rng, 1, 5, 3, 3)}, tmp_path,
                initializers={"s": rand(rng, 5, 1, 1)}, exact=True)


EDGES = np.array([0.0, -0.0, 3.0, -3.0, 1.5, -1.5, np.inf, -np.inf, np.nan, 7.25, -0.5, 1e-30], np.float32)


def edge_pairs(dtype):
    """Every pairing of special values (signed zeros, infinities, NaN) as two flat operands."""
    a, b = np.meshgrid(EDGES.astype(dtype), EDGES.astype(dtype))
    return a.reshape(-1), b.reshape(-1)


def test_max_min_fmod_edges(tmp_path, dtype=np.float32):
    """Max/Min propagate NaN and C fmod (Mod fmod=1) against onnxruntime, on every pairing of special values."""
    a, b = edge_pairs(dtype)
    nodes = [helper.make_node("Max", ["a", "b"], ["y_max"]), helper.make_node("Min", ["a", "b"], ["y_min"]),
             helper.make_node("Mod", ["a", "b"], ["y_fmod"], fmod=1)]
    check_nodes(nodes, {"a": (dtype, a.shape), "b": (dtype, b.shape)}, {"a": a, "b": b}, tmp_path, exact=True)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_python_mod(tmp_path, dtype=np.float32):
    """Mod fmod=0 (sign of the divisor) against the ONNX reference: onnxruntime only runs fmod=1 on floats."""
    rng = np.random.default_rng(33)
    ea, eb = edge_pairs(dtype)
    a = np.concatenate([ea, (rng.standard_normal(40) * 10).astype(dtype)])
    b = np.concatenate([eb, rng.standard_normal(40).astype(dtype)])
    check_nodes_with_reference([helper.make_node("Mod", ["a", "b"], ["y"])], {"a": (dtype, a.shape),
                               "b": (dtype, b.shape)}, {"a": a, "b": b}, tmp_path, opset=13)


@pytest.mark.parametrize("op", ["Sum", "Mean", "Max", "Min"])
def test_variadic(op, tmp_path):
    """One, two and four inputs with broadcasting (split_variadic chains them into binary nodes)."""
    rng = np.random.default_rng(34)
    shapes = [(2, 3, 4), (4,), (3, 1), (1, 1, 1)]
    feeds = {f"x{i}": rand(rng, *s) for i, s in enumerate(shapes)}
    inputs = {n: (np.float32, v.shape) for n, v in feeds.items()}
    nodes = [helper.make_node(op, ["x0"], ["one"]), helper.make_node(op, ["x0", "x1"], ["two"]),
             helper.make_node(op, list(feeds), ["four"])]
    check_nodes(nodes, inputs, feeds, tmp_path)


# Row lengths around the four-output unroll (1..9) for each stride pair of a row: a flat same-shape row (1, 1), b
# repeated per row (1, 1 with the walk resetting b), b broadcast along the row (1, 0), a broadcast along it (0, 1).
ROW_PATTERNS = [
    lambda n: ((2, n), (2, n)),
    lambda n: ((3, n), (n,)),
    lambda n: ((3, n), (3, 1)),
    lambda n: ((3, 1), (3, n)),
]


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div", "Max", "Min"])
def test_row_tails(op, tmp_path):
    """Every stride pair of the unrolled rows (and the per-op loops of Div, Max, Min) on rows of 1 to 9 elements:
    the four-output trips and each tail length, exact against onnxruntime; a NaN and infinities sit in the data."""
    rng = np.random.default_rng(35)
    nodes, inputs, feeds = [], {}, {}
    for n in range(1, 10):
        for k, pattern in enumerate(ROW_PATTERNS):
            names = []
            for side, shp in zip("ab", pattern(n)):
                name = f"{side}{n}_{k}"
                feeds[name] = rand(rng, *shp)
                feeds[name].flat[-1] = [np.nan, np.inf, -np.inf, 0.0][(n + k) % 4] if side == "a" else 1.5
                inputs[name] = (np.float32, shp)
                names.append(name)
            nodes.append(helper.make_node(op, names, [f"y{n}_{k}"]))
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)
