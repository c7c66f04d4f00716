"""unary_int against the ONNX reference (bit for bit): Abs/Neg/Sign/Relu on every integer type with the extremes
(wrapping Abs/Neg of the minimum), and Not on bool."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes_with_reference

INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def test_integer_ops_and_not(tmp_path):
    """One model: every op on every integer type (ONNX defines Neg and Relu for signed types only), Not on bool."""
    rng = np.random.default_rng(54)
    nodes, inputs, feeds = [], {}, {}
    for dtype in INTS:
        info, name = np.iinfo(dtype), np.dtype(dtype).name
        x = rng.integers(info.min, info.max, 33, dtype=dtype, endpoint=True)
        x[:5] = [info.min, info.max, 0, 1, info.min + 1]
        inputs[name], feeds[name] = (dtype, (3, 11)), x.reshape(3, 11)
        ops = ["Abs", "Sign"] if info.min == 0 else ["Abs", "Neg", "Sign", "Relu"]
        nodes += [helper.make_node(op, [name], [f"{op.lower()}_{name}"]) for op in ops]
    inputs["b"], feeds["b"] = (np.bool_, (2, 3, 5)), rng.integers(0, 2, (2, 3, 5)).astype(bool)
    nodes.append(helper.make_node("Not", ["b"], ["not"]))
    check_nodes_with_reference(nodes, inputs, feeds, tmp_path, opset=14)
