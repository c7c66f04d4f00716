"""activation_f32 against onnxruntime: Exp, Log, Erf, Elu, Celu, Selu, Softplus, Mish, Swish and both Gelus, with
default and explicit attributes (per-function accuracy is tested in test_mcu_math.py)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import mcucomp
import mcucomp.host
from helpers import check_nodes, infer_outputs, make_model, rand
from mcucomp.errors import McucompError


def _data(shape):
    """Values over the interesting range (saturation of Elu/Softplus/Gelu included) with zeros of both signs."""
    x = rand(np.random.default_rng(52), *shape) * 6
    x.flat[:6] = [0.0, -0.0, 30.0, -30.0, 1e-20, -88.0]
    return x


def test_all_ops(tmp_path):
    x = _data((3, 7, 5))
    nodes = [helper.make_node(op, ["x"], [op.lower()]) for op in
             ("Exp", "Erf", "Elu", "Celu", "Selu", "Softplus", "Mish", "Gelu")]
    nodes += [
        helper.make_node("Log", ["ax"], ["log"]),
        helper.make_node("Elu", ["x"], ["elu_a"], alpha=0.5),
        helper.make_node("Celu", ["x"], ["celu_a"], alpha=2.0),
        helper.make_node("Selu", ["x"], ["selu_ag"], alpha=2.0, gamma=3.0),
        helper.make_node("Gelu", ["x"], ["gelu_tanh"], approximate="tanh"),
    ]
    inputs = {"x": (np.float32, x.shape), "ax": (np.float32, x.shape)}
    check_nodes(nodes, inputs, {"x": x, "ax": np.abs(x) + np.float32(1e-3)}, tmp_path, opset=20)


def test_exp_matches_onnxruntime_bit_for_bit(tmp_path):
    """Exp is MLAS's exp (mcu_expf), like onnxruntime's."""
    x = _data((4, 33))
    check_nodes([helper.make_node("Exp", ["x"], ["y"])], {"x": (np.float32, x.shape)}, {"x": x}, tmp_path,
                exact=True)


def _compile_and_run(nodes, x: np.ndarray, out_dir, opset: int) -> dict:
    """Our outputs for a model of `nodes` on input x."""
    inputs = {"x": (np.float32, x.shape)}
    model = make_model(nodes, inputs, infer_outputs(nodes, inputs, opset=opset), opset=opset)
    mcucomp.compile_model(model, out_dir, name="m")
    return mcucomp.host.load(out_dir).run({"x": x})


def test_swish(tmp_path):
    """Swish (opset 24, newer than onnxruntime's kernels) within half an ULP of x sigmoid(alpha x) in float64."""
    x = _data((2, 9))
    ours = _compile_and_run([helper.make_node("Swish", ["x"], ["y"]),
                             helper.make_node("Swish", ["x"], ["y2"], alpha=0.5)], x, tmp_path, opset=24)
    for name, alpha in (("y", 1.0), ("y2", 0.5)):
        want = x / (1.0 + np.exp(-alpha * x.astype(np.float64)))
        assert np.all(np.abs(ours[name] - want) <= 0.5001 * np.spacing(np.abs(want.astype(np.float32)))), name


def test_unknown_gelu_approximation_is_unsupported(tmp_path):
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(McucompError, match="approximate"):
        _compile_and_run([helper.make_node("Gelu", ["x"], ["y"], approximate="erf")], x, tmp_path, opset=20)
