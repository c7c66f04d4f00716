"""scatter against onnxruntime (float32) and onnx.reference (integers; bit for bit): ScatterElements on first and
last axis with each reduction, negative and duplicate indices; ScatterND with slice and element updates. Each test
builds one model holding several nodes, so the file compiles few models."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, check_nodes_with_reference, rand

REDUCTIONS = ["none", "add", "mul", "max", "min"]


def add_elements_node(rng, nodes, inputs, feeds, tag, data, axis, dtype, reduction):
    """Append a ScatterElements node (its own data, indices with duplicates, updates) named by tag."""
    upd_shape = tuple(3 if d == axis % len(data) else n for d, n in enumerate(data))
    values = rand(rng, *data), rand(rng, *upd_shape)
    if dtype != np.float32:
        values = tuple((v * 50).astype(dtype) for v in values)
    feeds.update({f"x{tag}": values[0], f"i{tag}": rng.integers(-data[axis], data[axis], upd_shape).astype(np.int64),
                  f"u{tag}": values[1]})
    inputs.update({f"x{tag}": (dtype, data), f"i{tag}": (np.int64, upd_shape), f"u{tag}": (dtype, upd_shape)})
    nodes.append(helper.make_node("ScatterElements", [f"x{tag}", f"i{tag}", f"u{tag}"], [f"y{tag}"], axis=axis,
                                  reduction=reduction))


def test_scatter_elements_f32(tmp_path):
    rng = np.random.default_rng(7)
    nodes, inputs, feeds = [], {}, {}
    for r in REDUCTIONS:
        for axis in (0, -1):
            add_elements_node(rng, nodes, inputs, feeds, f"{r}{axis + 1}", (4, 5, 6), axis, np.float32, r)
    check_nodes(nodes, inputs, feeds, tmp_path, opset=18, exact=True)


def test_scatter_elements_int(tmp_path):
    """Integer reductions wrap like the reference's numpy arithmetic."""
    rng = np.random.default_rng(8)
    nodes, inputs, feeds = [], {}, {}
    for k, (dtype, r) in enumerate([(np.int32, "add"), (np.int8, "mul"), (np.uint8, "max"), (np.int64, "min"),
                                    (np.int16, "none")]):
        add_elements_node(rng, nodes, inputs, feeds, str(k), (3, 7), 1, dtype, r)
    with np.errstate(over="ignore"):
        check_nodes_with_reference(nodes, inputs, feeds, tmp_path, opset=18)


def test_scatter_nd_f32(tmp_path):
    """Slices of [5, 3] at tuples over the first dim, some repeated, some negative, with each reduction."""
    rng = np.random.default_rng(9)
    feeds = {"x": rand(rng, 5, 5, 3), "i": np.array([[[1], [-1]], [[3], [1]]], np.int64), "u": rand(rng, 2, 2, 5, 3)}
    inputs = {"x": (np.float32, (5, 5, 3)), "i": (np.int64, (2, 2, 1)), "u": (np.float32, (2, 2, 5, 3))}
    nodes = [helper.make_node("ScatterND", ["x", "i", "u"], [f"y{r}"], reduction=r) for r in REDUCTIONS]
    check_nodes(nodes, inputs, feeds, tmp_path, opset=18, exact=True)


def test_scatter_nd_elements_int32(tmp_path):
    """Full index tuples (one element each), int32 data, opset-11 ScatterND without reduction."""
    rng = np.random.default_rng(10)
    feeds = {"x": rng.integers(-9, 9, (4, 3)).astype(np.int32), "i": np.array([[0, 2], [3, -1], [1, 0]], np.int64),
             "u": np.array([7, 8, 9], np.int32)}
    inputs = {"x": (np.int32, (4, 3)), "i": (np.int64, (3, 2)), "u": (np.int32, (3,))}
    check_nodes_with_reference([helper.make_node("ScatterND", ["x", "i", "u"], ["y"])], inputs, feeds, tmp_path,
                               opset=11)
