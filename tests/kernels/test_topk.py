"""topk against onnxruntime (float32, int64) and the ONNX reference (uint64, int8): largest/smallest, every axis,
k from 1 to the axis length, ties kept in index order."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, check_nodes_with_reference


def _nodes(x_name, dims, ks):
    """TopK over every axis for each k (clipped to the axis length), largest and smallest."""
    nodes, inits = [], {}
    for axis in range(-len(dims), len(dims)):
        for k in sorted({min(k, dims[axis]) for k in ks}):
            inits[f"k{k}"] = np.array([k], np.int64)
            for largest in (1, 0):
                tag = f"{x_name}_{axis + len(dims)}_{k}_{largest}"
                nodes.append(helper.make_node("TopK", [x_name, f"k{k}"], [f"v_{tag}", f"i_{tag}"], axis=axis,
                                              largest=largest))
    return nodes, inits


def test_topk_float32_int64_ties(tmp_path):
    rng = np.random.default_rng(30)
    feeds = {"f": rng.integers(-3, 4, (3, 5, 4)).astype(np.float32), "i": rng.integers(-2, 3, (2, 9)).astype(np.int64)}
    nodes, inits = _nodes("f", (3, 5, 4), (1, 3, 5))
    more, more_inits = _nodes("i", (2, 9), (2, 9))
    check_nodes(nodes + more, {k: (v.dtype, v.shape) for k, v in feeds.items()}, feeds, tmp_path,
                initializers={**inits, **more_inits}, exact=True)


def test_topk_unsigned_and_small_types(tmp_path):
    rng = np.random.default_rng(31)
    feeds = {"u": np.array([[2**63 + 5, 3, 2**64 - 1, 0, 2**63]], np.uint64),
             "b": rng.integers(-128, 128, (4, 3)).astype(np.int8)}
    nodes, inits = _nodes("u", (1, 5), (2, 5))
    more, more_inits = _nodes("b", (4, 3), (1, 3))
    check_nodes_with_reference(nodes + more, {k: (v.dtype, v.shape) for k, v in feeds.items()}, feeds, tmp_path,
                               initializers={**inits, **more_inits})
