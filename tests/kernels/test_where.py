"""where (exact) against the ONNX reference (onnxruntime lacks some element types) and onnxruntime: every element
size, three-way broadcasting, a constant operand."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, check_nodes_with_reference, rand

# (condition, X, Y) shapes: same, scalar-like X and Y, all three broadcast against each other
SHAPES = [((2, 3, 4), (2, 3, 4), (2, 3, 4)), ((3, 4), (1,), (1,)), ((3, 1, 1), (1, 5, 1), (2, 1, 5, 4))]


def test_where_types_and_broadcasting(tmp_path):
    rng = np.random.default_rng(60)
    nodes, inputs, feeds = [], {}, {}
    for dtype in (np.float32, np.float64, np.uint8, np.int16, np.int32, np.int64, np.bool_):
        t = np.dtype(dtype).name
        for i, (sc, sx, sy) in enumerate(SHAPES):
            c, x, y = f"c_{t}{i}", f"x_{t}{i}", f"y_{t}{i}"
            inputs.update({c: (np.bool_, sc), x: (dtype, sx), y: (dtype, sy)})
            feeds[c] = rng.random(sc) < 0.5
            feeds[x] = (rng.standard_normal(sx) * 100).astype(dtype)
            feeds[y] = (rng.standard_normal(sy) * 100).astype(dtype)
            nodes.append(helper.make_node("Where", [c, x, y], [f"out_{t}{i}"]))
    check_nodes_with_reference(nodes, inputs, feeds, tmp_path, opset=16)


def test_where_constant_branch(tmp_path):
    """A masked fill: Y is a constant scalar (the pattern attention masks use)."""
    rng = np.random.default_rng(61)
    c, x = rng.random((2, 5)) < 0.5, rand(rng, 2, 5)
    check_nodes([helper.make_node("Where", ["c", "x", "fill"], ["y"])], {"c": (np.bool_, c.shape),
                "x": (np.float32, x.shape)}, {"c": c, "x": x}, tmp_path,
                initializers={"fill": np.array(-np.inf, np.float32)}, exact=True)
