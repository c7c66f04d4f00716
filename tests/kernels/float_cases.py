"""Shared by the conv, conv-transpose, resize and recurrent kernel tests."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import infer_outputs, make_model, rand, run_both, ulp


def weighted_nodes(op: str, cases, bias_len, rng: np.random.Generator, runtime: bool):
    """Nodes `op`(x_i, w_i[, b_i]) -> y_i for cases of (x shape, w shape, has bias, attrs), with inputs and feeds;
    w and b are graph inputs when runtime, else initializers; bias_len(w shape, attrs) is the bias length."""
    nodes, inputs, feeds, inits = [], {}, {}, {}
    for i, (x_shape, w_shape, bias, attrs) in enumerate(cases):
        names = [f"x{i}", f"w{i}"] + ([f"b{i}"] if bias else [])
        values = [rand(rng, *x_shape), rand(rng, *w_shape)] + ([rand(rng, bias_len(w_shape, attrs))] if bias else [])
        for k, (name, value) in enumerate(zip(names, values)):
            if runtime or k == 0:
                inputs[name], feeds[name] = (np.float32, value.shape), value
            else:
                inits[name] = value
        nodes.append(helper.make_node(op, names, [f"y{i}"], **attrs))
    return nodes, inputs, feeds, inits


def assert_within_ulps(got: np.ndarray, want: np.ndarray, ulps: float, name: str) -> None:
    """Same shape and dtype, and |got - want| <= ulps * ulp(max|want|)."""
    assert got.shape == want.shape and got.dtype == want.dtype, (
        f"{name}: {got.dtype}{got.shape} vs {want.dtype}{want.shape}")
    err = np.abs(got.astype(np.float64) - want.astype(np.float64)).max() if want.size else 0.0
    bound = ulps * ulp(np.abs(want).max()) if want.size else 0.0
    assert err <= bound, f"{name}: |got - ref| = {err:.3g} exceeds {ulps} ulp(max|ref|) = {bound:.3g}"


def check_nodes_ulps(nodes, inputs: dict, feeds: dict, out_dir, ulps: float, initializers: dict | None = None,
                     opset: int = 13) -> None:
    """Like helpers.check_nodes, with the wider bound of assert_within_ulps per output, for kernels whose
    onnxruntime counterpart computes differently (each test says how and why its bound is what it is)."""
    outputs = infer_outputs(nodes, inputs, initializers, opset)
    ours, ref = run_both(make_model(nodes, inputs, outputs, initializers, opset), feeds, out_dir)
    for name, want in ref.items():
        assert_within_ulps(ours[name], want, ulps, name)
