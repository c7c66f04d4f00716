"""binary_int against onnxruntime (exact): integer arithmetic, Mod, Max/Min, bit logic and shifts, every int dtype."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import mcucomp
import mcucomp.host
from helpers import check_nodes, check_nodes_with_reference, infer_outputs, make_model

INT_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
# (a shape, b shape): same (flat), row, both-sided broadcast
SHAPES = [((2, 3, 5), (2, 3, 5)), ((3, 7), (7,)), ((5, 1, 3), (1, 7, 1))]
OPS = [("Add", {}), ("Sub", {}), ("Mul", {}), ("Div", {}), ("Mod", {"fmod": 0}), ("BitwiseAnd", {}),
       ("BitwiseOr", {}), ("BitwiseXor", {})]


def _full_range(rng, dtype, shape) -> np.ndarray:
    """Values over the whole range of an integer type (products and sums wrap)."""
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def _divisors(rng, dtype, shape) -> np.ndarray:
    """Non-zero divisors other than -1 (onnxruntime traps on x / 0 and INT_MIN / -1), small and large."""
    v = _full_range(rng, dtype, shape)
    small = rng.integers(2, 9, size=shape).astype(dtype)
    v = np.where(rng.random(shape) < 0.5, small, v)
    if np.issubdtype(dtype, np.signedinteger):
        v = np.where(rng.random(shape) < 0.3, (-small).astype(dtype), v)
    return np.where((v == 0) | (v == np.array(-1).astype(dtype)), np.array(3, dtype), v).astype(dtype)


def _binary_model(rng, ops, types):
    """Nodes applying every op to every shape pair of every given integer type, with their inputs and feeds."""
    nodes, inputs, feeds = [], {}, {}
    for dtype in types:
        t = np.dtype(dtype).name
        for i, (sa, sb) in enumerate(SHAPES):
            a, b = f"a_{t}_{i}", f"b_{t}_{i}"
            inputs[a], inputs[b] = (dtype, sa), (dtype, sb)
            feeds[a], feeds[b] = _full_range(rng, dtype, sa), _divisors(rng, dtype, sb)
            nodes += [helper.make_node(op, [a, b], [f"y_{t}_{i}_{k}"], **attrs) for k, (op, attrs) in enumerate(ops)]
    return nodes, inputs, feeds


@pytest.mark.parametrize("types", [INT_TYPES[:4], INT_TYPES[4:]], ids=["8-16bit", "32-64bit"])
def test_integer_ops_broadcasting(types, tmp_path):
    rng = np.random.default_rng(40)
    nodes, inputs, feeds = _binary_model(rng, OPS, types)
    check_nodes(nodes, inputs, feeds, tmp_path, opset=18)


def test_max_min_fmod(tmp_path):
    """The ONNX reference: onnxruntime has no int16/uint16 Max and Min, and its fmod=1 Mod rounds 64-bit values
    through double."""
    rng = np.random.default_rng(41)
    nodes, inputs, feeds = _binary_model(rng, [("Max", {}), ("Min", {}), ("Mod", {"fmod": 1})], INT_TYPES)
    check_nodes_with_reference(nodes, inputs, feeds, tmp_path, opset=13)


def test_division_edge_cases(tmp_path):
    """Truncating Div, Python-style and C-style Mod of mixed signs; x / 0 and x % 0 give 0; INT_MIN / -1 wraps."""
    lo = np.iinfo(np.int32).min
    a = np.array([7, -7, 7, -7, 5, -5, lo, lo, 3], np.int32)
    b = np.array([2, 2, -2, -2, 0, 0, -1, -1, 0], np.int32)
    nodes = [helper.make_node("Div", ["a", "b"], ["q"]), helper.make_node("Mod", ["a", "b"], ["m"]),
             helper.make_node("Mod", ["a", "b"], ["f"], fmod=1)]
    inputs = {"a": (np.int32, a.shape), "b": (np.int32, b.shape)}
    mcucomp.compile_model(make_model(nodes, inputs, infer_outputs(nodes, inputs)), tmp_path, name="m")
    got = mcucomp.host.load(tmp_path).run({"a": a, "b": b})
    np.testing.assert_array_equal(got["q"], [3, -3, -3, 3, 0, 0, lo, lo, 0])
    np.testing.assert_array_equal(got["m"], [1, 1, -1, -1, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(got["f"], [1, -1, 1, -1, 0, 0, 0, 0, 0])


def test_bool_logic(tmp_path):
    rng = np.random.default_rng(42)
    shapes = [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 5))]
    nodes, inputs, feeds = [], {}, {}
    for i, (sa, sb) in enumerate(shapes):
        inputs[f"a{i}"], inputs[f"b{i}"] = (np.bool_, sa), (np.bool_, sb)
        feeds[f"a{i}"], feeds[f"b{i}"] = rng.random(sa) < 0.5, rng.random(sb) < 0.5
        nodes += [helper.make_node(op, [f"a{i}", f"b{i}"], [f"{op}{i}"]) for op in ("And", "Or", "Xor")]
    check_nodes(nodes, inputs, feeds, tmp_path)


def test_bitshift(tmp_path):
    """Shifts from 0 to past the width (0, or -1 for a negative value shifted right), negative amounts (opset 28)."""
    rng = np.random.default_rng(43)
    nodes, inputs, feeds = [], {}, {}
    for dtype in INT_TYPES:
        t, bits = np.dtype(dtype).name, 8 * np.dtype(dtype).itemsize
        lo = -3 if np.issubdtype(dtype, np.signedinteger) else 0
        inputs[f"x_{t}"], inputs[f"s_{t}"] = (dtype, (4, bits + 8)), (dtype, (bits + 8,))
        feeds[f"x_{t}"] = _full_range(rng, dtype, (4, bits + 8))
        feeds[f"s_{t}"] = np.arange(lo, bits + 8 + lo).astype(dtype)
        nodes += [helper.make_node("BitShift", [f"x_{t}", f"s_{t}"], [f"y_{t}_{d}"], direction=d)
                  for d in ("LEFT", "RIGHT")]
    check_nodes_with_reference(nodes, inputs, feeds, tmp_path, opset=28)


def test_variadic_max_min(tmp_path):
    """Max and Min of three broadcast int32 inputs (split_variadic chains them into binary nodes)."""
    rng = np.random.default_rng(44)
    feeds = {f"x{i}": rng.integers(-1000, 1000, s, dtype=np.int32) for i, s in enumerate([(3, 4), (4,), (3, 1)])}
    inputs = {n: (np.int32, v.shape) for n, v in feeds.items()}
    check_nodes([helper.make_node(op, list(feeds), [f"y_{op}"]) for op in ("Max", "Min")], inputs, feeds, tmp_path)
