"""constant (compile-time values copied into graph outputs) against onnxruntime (exact): Shape with start/end,
Size, Range, Constant, NonZero of a constant; NonZero of run-time data is refused with the constraint's message."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import mcucomp
from mcucomp.errors import UnsupportedError

from helpers import check_model, check_nodes, make_model, rand


def test_compile_time_values(tmp_path):
    x = rand(np.random.default_rng(220), 2, 3, 4)
    inits = {"start": np.array(10, np.int32), "limit": np.array(-3, np.int32), "delta": np.array(-4, np.int32),
             "fstart": np.array(0.5, np.float32), "flimit": np.array(2.0, np.float32),
             "fdelta": np.array(0.25, np.float32)}
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Shape", ["x"], ["shape_tail"], start=-2),
             helper.make_node("Shape", ["x"], ["shape_mid"], start=1, end=-1),
             helper.make_node("Size", ["x"], ["size"]),
             helper.make_node("Range", ["start", "limit", "delta"], ["range_int"]),
             helper.make_node("Range", ["fstart", "flimit", "fdelta"], ["range_float"]),
             helper.make_node("Constant", [], ["ints"], value_ints=[3, -1, 4]),
             helper.make_node("Constant", [], ["scalar"], value_float=2.5)]
    check_nodes(nodes, {"x": (np.float32, x.shape)}, {"x": x}, tmp_path, initializers=inits, opset=15, exact=True)


def test_nonzero(tmp_path):
    """Of a constant: computed by the compiler (the graph declares the output shape); of run-time data: refused."""
    cond = np.array([[True, False, True], [False, False, True]])
    node = helper.make_node("NonZero", ["c"], ["nz"])
    model = make_model([node], {}, {"nz": (np.int64, (2, 3))}, {"c": cond})
    check_model(model, {}, tmp_path / "const", exact=True)
    runtime = make_model([node], {"c": (np.bool_, cond.shape)}, {"nz": (np.int64, (2, 3))})
    with pytest.raises(UnsupportedError, match="inputs of Range and NonZero must be constants"):
        mcucomp.compile_model(runtime, tmp_path / "runtime", name="m")
