"""cumsum against onnxruntime: float32 (summed in order: exact), int32 and int64 with wrap-around, every mode; CumProd
against onnx.reference."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, check_nodes_with_reference, rand


def test_cumsum_modes_and_axes(tmp_path):
    rng = np.random.default_rng(200)
    x = rand(rng, 3, 5, 2)
    x[0, 0, 0] = -0.0
    inits = {"a0": np.array(0, np.int64), "a1": np.array(1, np.int32), "am1": np.array(-1, np.int64)}
    nodes = [helper.make_node("CumSum", ["x", "a1"], ["plain"]),
             helper.make_node("CumSum", ["x", "a0"], ["exclusive"], exclusive=1),
             helper.make_node("CumSum", ["x", "am1"], ["reverse"], reverse=1),
             helper.make_node("CumSum", ["x", "a1"], ["both"], exclusive=1, reverse=1)]
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, exact=True)


def test_cumsum_integers_wrap(tmp_path):
    i32 = np.array([[2**31 - 1, 5, -3], [-(2**31), -1, 7]], np.int32)
    i64 = np.array([2**63 - 2, 3, -9, 1], np.int64)
    inits = {"a": np.array(1, np.int64), "z": np.array(0, np.int64)}
    nodes = [helper.make_node("CumSum", ["i32", "a"], ["y32"]),
             helper.make_node("CumSum", ["i64", "z"], ["y64"], reverse=1, exclusive=1),
             helper.make_node("CumSum", ["i64", "z"], ["y64_inclusive"])]
    inputs = {"i32": (np.int32, i32.shape), "i64": (np.int64, i64.shape)}
    check_nodes(nodes, inputs, {"i32": i32, "i64": i64}, tmp_path, initializers=inits)


def test_cumprod_modes_and_wrap(tmp_path):
    """CumProd (opset 26): float32 every mode (multiplied in order: exact), int32 wrapping, against onnx.reference."""
    rng = np.random.default_rng(201)
    x = rand(rng, 3, 5, 2)
    i32 = np.array([[65536, 65537, -3], [7, -1, 2**30]], np.int32)
    inits = {"a0": np.array(0, np.int64), "a1": np.array(1, np.int32), "am1": np.array(-1, np.int64)}
    nodes = [helper.make_node("CumProd", ["x", "a1"], ["plain"]),
             helper.make_node("CumProd", ["x", "a0"], ["exclusive"], exclusive=1),
             helper.make_node("CumProd", ["x", "am1"], ["both"], exclusive=1, reverse=1),
             helper.make_node("CumProd", ["i32", "a1"], ["y32"], reverse=1)]
    inputs = {"x": (np.float32, x.shape), "i32": (np.int32, i32.shape)}
    with np.errstate(over="ignore"):
        check_nodes_with_reference(nodes, inputs, {"x": x, "i32": i32}, tmp_path, initializers=inits, opset=26)
