"""pow against onnxruntime: float bases within FLOAT_ULPS, integer bases exactly, every exponent type, broadcasting."""

from __future__ import annotations

import numpy as np
from onnx import helper

import mcucomp
import mcucomp.host
from helpers import check_nodes, infer_outputs, make_model


def test_float_base(tmp_path):
    """float32 bases raised to float32, int32, int64 and float64 exponents (onnxruntime's types), with broadcasting."""
    rng = np.random.default_rng(90)
    x = np.abs(rng.standard_normal((2, 3, 4))).astype(np.float32) * 3
    feeds = {"x": x, "e_f": rng.uniform(-3, 3, (4,)).astype(np.float32), "e_i32": np.array([[0], [1], [-2]], np.int32),
             "e_i64": np.array([3, -1, 5, 2], np.int64), "e_f64": np.array([0.5, 2.0, -1.5, 4.0])}
    nodes = [helper.make_node("Pow", ["x", e], [f"y_{e}"]) for e in feeds if e != "x"]
    check_nodes(nodes, {n: (v.dtype, v.shape) for n, v in feeds.items()}, feeds, tmp_path, opset=15)


def test_negative_float_base(tmp_path):
    """Negative bases, zeros and infinities (exact results): odd integral powers keep the sign, zero to a negative
    power is a signed infinity (C99 powf)."""
    x = np.array([-2.0, -0.5, 0.0, -0.0, -np.inf, -np.inf], np.float32)
    e = np.array([3.0, 2.0, -1.0, -3.0, 3.0, 2.0], np.float32)
    check_nodes([helper.make_node("Pow", ["x", "e"], ["y"])], {"x": (np.float32, x.shape),
                "e": (np.float32, e.shape)}, {"x": x, "e": e}, tmp_path, exact=True)


def test_integer_base(tmp_path):
    """int32/int64 bases with integer exponents (exact powers) and float exponents (powf truncated; a negative base
    with a fractional exponent is NaN, whose integer conversion is undefined, so the float cases use bases >= 0)."""
    feeds = {"x32": np.array([[1], [2], [-3], [7]], np.int32), "x64": np.array([[1], [2], [-3], [10]], np.int64),
             "p32": np.array([[0], [2], [3], [7]], np.int32), "p64": np.array([[1], [2], [5], [10]], np.int64),
             "e32": np.array([0, 1, 5, 9], np.int32), "e64": np.array([0, 3, 4, 17], np.int64),
             "ef": np.array([0.0, 0.5, 2.0, 3.0], np.float32)}
    nodes = [helper.make_node("Pow", [x, e], [f"y_{x}_{e}"]) for x, e in
             [("x32", "e32"), ("x64", "e64"), ("p32", "ef"), ("p64", "ef")]]
    check_nodes(nodes, {n: (v.dtype, v.shape) for n, v in feeds.items()}, feeds, tmp_path, opset=15)


def test_integer_base_wraps_and_negative_exponents(tmp_path):
    """Overflowing powers wrap like numpy; a negative exponent gives 1/x^k truncated (+-1 for |x| == 1, else 0)."""
    x = np.array([3, 2, 1, -1, -1, 5, 0], np.int32)
    e = np.array([40, 31, -4, -3, -2, -1, -2], np.int32)
    nodes = [helper.make_node("Pow", ["x", "e"], ["y"])]
    inputs = {"x": (np.int32, x.shape), "e": (np.int32, e.shape)}
    mcucomp.compile_model(make_model(nodes, inputs, infer_outputs(nodes, inputs)), tmp_path, name="m")
    got = mcucomp.host.load(tmp_path).run({"x": x, "e": e})["y"]
    np.testing.assert_array_equal(got, [np.int32(3) ** np.int32(40), np.int32(2) ** np.int32(31), 1, -1, 1, 0, 0])
