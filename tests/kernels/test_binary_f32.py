"""binary_f32 against onnxruntime (exact): Add/Sub/Mul/Div with same shapes and every broadcasting pattern."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers import check_nodes, rand

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
