"""einsum against onnxruntime (float32) and the ONNX reference (float64, int32, int64): two-operand products with
ellipsis broadcasting, one-operand sums, transposes, diagonals and traces, implicit outputs; MatMul on float64 and
integer tensors."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers import check_nodes, check_nodes_with_reference

# (equation, operand shapes)
CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 1)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (1, 5, 4, 2)]),
    ("i,i", [(7,), (7,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(5, 5)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("ba", [(3, 2)]),
    ("bhqd,bhkd->bhqk", [(1, 2, 3, 4), (1, 2, 5, 4)]),
]


def _nodes(prefix):
    """One Einsum node per case; inputs named prefix + case index + operand letter."""
    nodes, inputs = [], {}
    for i, (eq, shapes) in enumerate(CASES):
        names = [f"{prefix}{i}{'ab'[k]}" for k in range(len(shapes))]
        inputs.update(zip(names, shapes))
        nodes.append(helper.make_node("Einsum", names, [f"{prefix}{i}_y"], equation=eq))
    return nodes, inputs


def test_einsum_float32(tmp_path):
    """Sums of up to 5 terms of grid values (multiples of 1/8 below 2) are exact in any order."""
    rng = np.random.default_rng(90)
    nodes, shapes = _nodes("f")
    feeds = {n: (rng.integers(-16, 16, s) / 8).astype(np.float32) for n, s in shapes.items()}
    check_nodes(nodes, {n: (np.float32, s) for n, s in shapes.items()}, feeds, tmp_path, opset=12, exact=True)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int64])
def test_einsum_other_dtypes(tmp_path, dtype):
    rng = np.random.default_rng(91)
    nodes, shapes = _nodes("t")
    feeds = {n: rng.integers(-9, 10, s).astype(dtype) for n, s in shapes.items()}
    check_nodes_with_reference(nodes, {n: (dtype, s) for n, s in shapes.items()}, feeds, tmp_path, opset=12)


def test_matmul_int_and_float64(tmp_path):
    """MatMul with 1-D operands and broadcast batch dims, int32 wrapping and float64."""
    rng = np.random.default_rng(92)
    pairs = [((5,), (5, 3)), ((3, 5), (5,)), ((4,), (4,)), ((2, 1, 3, 4), (5, 4, 2))]
    nodes, inputs, feeds = [], {}, {}
    for dtype, tag in ((np.int32, "i"), (np.float64, "d")):
        for k, (sa, sb) in enumerate(pairs):
            a, b = f"{tag}{k}a", f"{tag}{k}b"
            feeds[a] = rng.integers(-9, 10, sa).astype(dtype)
            feeds[b] = rng.integers(-9, 10, sb).astype(dtype)
            inputs[a], inputs[b] = (dtype, sa), (dtype, sb)
            nodes.append(helper.make_node("MatMul", [a, b], [f"{tag}{k}y"]))
    feeds["i0a"][0] = 2**30  # the int32 product wraps
    check_nodes_with_reference(nodes, inputs, feeds, tmp_path)
