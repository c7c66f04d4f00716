"""trig_f32 against onnxruntime, and within half an ULP (correctly rounded) of numpy's float64 functions."""

from __future__ import annotations

import numpy as np
from onnx import helper

import mcucomp
import mcucomp.host
from helpers import check_model, infer_outputs, make_model

#: ONNX op → (numpy function, input kind): "any" real, "hyp" where sinh/cosh stay finite, "unit" [-1, 1],
#: "ge1" [1, ...), "open" (-1, 1).
OPS = {"Sin": (np.sin, "any"), "Cos": (np.cos, "any"), "Tan": (np.tan, "any"), "Asin": (np.arcsin, "unit"),
       "Acos": (np.arccos, "unit"), "Atan": (np.arctan, "any"), "Sinh": (np.sinh, "hyp"),
       "Cosh": (np.cosh, "hyp"), "Asinh": (np.arcsinh, "any"), "Acosh": (np.arccosh, "ge1"),
       "Atanh": (np.arctanh, "open")}


def _inputs(shape) -> dict[str, np.ndarray]:
    """Per input kind: random values plus the edges (zeros of both signs, domain ends, huge trig arguments)."""
    rng = np.random.default_rng(53)
    n = int(np.prod(shape))
    any_x = np.concatenate([rng.uniform(-12, 12, n - 8), [0.0, -0.0, 1e-30, 1e4, -3e5, 1e20, 3.4e38, 1.5707964]])
    hyp = np.concatenate([rng.uniform(-12, 12, n - 6), [0.0, -0.0, 1e-30, 89.0, -89.0, 0.5]])
    unit = np.concatenate([rng.uniform(-1, 1, n - 6), [1.0, -1.0, 0.0, -0.0, 0.99999994, -1e-8]])
    ge1 = np.concatenate([1.0 + rng.exponential(3.0, n - 3), [1.0, 1.0000001, 3e38]])
    open_x = np.concatenate([rng.uniform(-0.999, 0.999, n - 4), [0.0, -0.0, 0.99999994, -0.99999994]])
    return {k: v.astype(np.float32).reshape(shape) for k, v in
            (("any", any_x), ("hyp", hyp), ("unit", unit), ("ge1", ge1), ("open", open_x))}


def test_all_ops(tmp_path):
    feeds = _inputs((3, 5, 7))
    nodes = [helper.make_node(op, [kind], [op.lower()]) for op, (_, kind) in OPS.items()]
    inputs = {k: (np.float32, v.shape) for k, v in feeds.items()}
    model = make_model(nodes, inputs, infer_outputs(nodes, inputs))
    ours = check_model(model, feeds, tmp_path)
    for op, (func, kind) in OPS.items():
        with np.errstate(over="ignore"):
            ref = func(feeds[kind].astype(np.float64))
            step = np.spacing(np.abs(ref.astype(np.float32))).astype(np.float64)
        finite = np.isfinite(step)
        assert np.array_equal(ours[op.lower()][~finite], ref[~finite].astype(np.float32)), op
        err = np.abs(ours[op.lower()][finite] - ref[finite]) / step[finite]
        assert err.max() <= 0.5001, f"{op}: {err.max():.3f} ULP"


def test_special_values(tmp_path):
    """NaN outside the domains and for NaN; infinities and signed zeros as C99's functions (numpy's float64 ones)."""
    x = np.float32([[1.5, -1.5, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.0, -0.0, 100.0, -100.0]])
    nodes = [helper.make_node(op, ["x"], [op.lower()]) for op in OPS]
    model = make_model(nodes, {"x": (np.float32, x.shape)}, infer_outputs(nodes, {"x": (np.float32, x.shape)}))
    mcucomp.compile_model(model, tmp_path, name="m")
    ours = mcucomp.host.load(tmp_path).run({"x": x})
    for op, (func, _) in OPS.items():
        with np.errstate(all="ignore"):
            want = func(x.astype(np.float64)).astype(np.float32)
        got = ours[op.lower()]
        assert np.array_equal(np.isnan(got), np.isnan(want)), op
        special = np.isinf(want) | (want == 0)  # infinities and zeros bit for bit (signs included)
        assert np.array_equal(got[special].view(np.uint32), want[special].view(np.uint32)), op
