"""argminmax against onnxruntime (float32, int32) and the ONNX reference (other dtypes): every axis, keepdims,
select_last_index with ties."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, check_nodes_with_reference


def _nodes(x_name, rank):
    """ArgMax and ArgMin over every axis (negative too), with and without keepdims and select_last_index."""
    nodes = []
    for op in ("ArgMax", "ArgMin"):
        for axis in range(-rank, rank):
            for keep, last in ((1, 0), (0, 1)):
                nodes.append(helper.make_node(op, [x_name], [f"{op}_{x_name}_{axis + rank}_{keep}{last}"], axis=axis,
                                              keepdims=keep, select_last_index=last))
    return nodes


def test_argminmax_float32_and_int32_with_ties(tmp_path):
    rng = np.random.default_rng(20)
    feeds = {"f": rng.integers(-3, 4, (3, 1, 5, 4)).astype(np.float32),  # few distinct values: many ties
             "i": rng.integers(-2, 3, (4, 7)).astype(np.int32)}
    check_nodes(_nodes("f", 4) + _nodes("i", 2), {k: (v.dtype, v.shape) for k, v in feeds.items()}, feeds, tmp_path,
                exact=True)


def test_argminmax_other_dtypes(tmp_path):
    rng = np.random.default_rng(21)
    feeds = {"u8": rng.integers(0, 256, (3, 6)).astype(np.uint8), "i64": rng.integers(-5, 5, (6, 2)).astype(np.int64),
             "d": rng.standard_normal((2, 5))}
    nodes = _nodes("u8", 2) + _nodes("i64", 2) + _nodes("d", 2)
    check_nodes_with_reference(nodes, {k: (v.dtype, v.shape) for k, v in feeds.items()}, feeds, tmp_path)
