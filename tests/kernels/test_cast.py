"""cast against onnxruntime (exact) for every pair of types on in-range values; the documented out-of-range rules."""

from __future__ import annotations

import numpy as np
from onnx import helper

import mcucomp
import mcucomp.host
from helpers import check_model, check_nodes, infer_outputs, make_model

INT_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
ALL_TYPES = INT_TYPES + [np.float32, np.float64, np.bool_]


def _cast_all(source: str, targets) -> list:
    """Cast nodes from one input to each target type."""
    return [helper.make_node("Cast", [source], [f"{source}_to_{np.dtype(t).name}"],
                             to=helper.np_dtype_to_tensor_dtype(np.dtype(t))) for t in targets]


def test_cast_in_range(tmp_path):
    """Floats truncate toward zero, integers wrap, float64 rounds to float32 (overflowing to inf), bool is 0/1."""
    rng = np.random.default_rng(70)
    signed = np.array([-128.0, -127.9, -3.5, -0.7, -0.0, 0.0, 0.4, 2.5, 99.99, 127.9], np.float32)
    unsigned = np.abs(signed) * 2
    wide = np.array([1e300, -1e300, 3.4028235677973366e38, 3.4028235e38, 1 + 2.0 ** -30, -1e-310, np.nan, np.inf])
    feeds = {"f_signed": signed, "f_unsigned": unsigned, "d": wide, "b": np.array([True, False, True])}
    for t in INT_TYPES:
        info = np.iinfo(t)
        edges = np.array([info.min, info.max, 0, 1], dtype=t)
        feeds[f"i_{np.dtype(t).name}"] = np.concatenate([edges, rng.integers(info.min, info.max, 12, dtype=t)])
    nodes = (_cast_all("f_signed", [t for t in ALL_TYPES if t not in (np.uint8, np.uint16, np.uint32, np.uint64)])
             + _cast_all("f_unsigned", [np.uint8, np.uint16, np.uint32, np.uint64]) + _cast_all("d", [np.float32])
             + _cast_all("b", ALL_TYPES))
    for t in INT_TYPES:
        nodes += _cast_all(f"i_{np.dtype(t).name}", ALL_TYPES)
    check_nodes(nodes, {n: (v.dtype, v.shape) for n, v in feeds.items()}, feeds, tmp_path, opset=21, exact=True)


def test_castlike(tmp_path):
    x = np.array([1.9, -2.7, 300.0], np.float32)
    check_nodes([helper.make_node("CastLike", ["x", "like"], ["y"])], {"x": (np.float32, x.shape),
                "like": (np.int16, (1,))}, {"x": x, "like": np.zeros(1, np.int16)}, tmp_path, opset=21, exact=True)


def test_float_to_int_out_of_range(tmp_path):
    """Undefined in ONNX and C: NaN gives 0; values saturate to the int64 range (uint64: [0, 2^64 - 1]), then wrap."""
    x = np.array([np.nan, np.inf, -np.inf, 1e20, -1e20, 300.5, -1.5, 1.5e19], np.float32)
    nodes = _cast_all("x", [np.int8, np.uint8, np.int64, np.uint64])
    inputs = {"x": (np.float32, x.shape)}
    mcucomp.compile_model(make_model(nodes, inputs, infer_outputs(nodes, inputs)), tmp_path, name="m")
    got = mcucomp.host.load(tmp_path).run({"x": x})
    i64max, i64min, u64max = np.iinfo(np.int64).max, np.iinfo(np.int64).min, np.iinfo(np.uint64).max
    u64_big = int(np.float32(1.5e19))
    np.testing.assert_array_equal(got["x_to_int8"], [0, -1, 0, -1, 0, 44, -1, -1])
    np.testing.assert_array_equal(got["x_to_uint8"], [0, 255, 0, 255, 0, 44, 255, 255])
    np.testing.assert_array_equal(got["x_to_int64"], [0, i64max, i64min, i64max, i64min, 300, -1, i64max])
    np.testing.assert_array_equal(got["x_to_uint64"], np.array([0, u64max, 2 ** 63, u64max, 2 ** 63, 300, u64max,
                                                                u64_big], dtype=np.uint64))


def test_chain_in_arena(tmp_path):
    """Intermediates that die at the next node, so the planner may place outputs over inputs (narrowing and widening
    casts, integer arithmetic, a comparison and a select)."""
    rng = np.random.default_rng(71)
    x = (rng.standard_normal((3, 50)) * 200).astype(np.float32)
    nodes = [helper.make_node("Cast", ["x"], ["i32"], to=helper.np_dtype_to_tensor_dtype(np.dtype(np.int32))),
             helper.make_node("Mul", ["i32", "k"], ["scaled"]),
             helper.make_node("Cast", ["scaled"], ["i8"], to=helper.np_dtype_to_tensor_dtype(np.dtype(np.int8))),
             helper.make_node("Cast", ["i8"], ["f"], to=helper.np_dtype_to_tensor_dtype(np.dtype(np.float32))),
             helper.make_node("Greater", ["f", "zero"], ["pos"]),
             helper.make_node("Where", ["pos", "f", "x"], ["y"])]
    inputs, inits = {"x": (np.float32, x.shape)}, {"k": np.array([3], np.int32), "zero": np.array(0, np.float32)}
    model = make_model(nodes, inputs, {"y": (np.float32, x.shape)}, inits, opset=21)
    check_model(model, {"x": x}, tmp_path, exact=True)
