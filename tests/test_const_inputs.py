"""Graph inputs that decide shapes must be bound at compile time (--const / constants=), then work like constants."""

from __future__ import annotations

import numpy as np
import pytest
from cli_models import make_model, run_cli, save
from onnx import TensorProto, helper

import mcucomp
import mcucomp.host
from mcucomp.errors import McucompError


def _reshape_model():
    """x[2,3,4] -> Relu -> Reshape(shape: a graph input) -> y."""
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Reshape", ["r", "shape"], ["y"], name="reshape")]
    return make_model(nodes, [("x", TensorProto.FLOAT, [2, 3, 4]), ("shape", TensorProto.INT64, [2])],
                      [("y", TensorProto.FLOAT, [4, 6])])


def test_unbound_shape_input_names_the_input_and_the_fix(tmp_path):
    path = save(_reshape_model(), tmp_path / "m.onnx")
    proc = run_cli("compile", path, "-o", tmp_path / "out")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "Input 'shape'" in proc.stderr and "Reshape node 'reshape'" in proc.stderr and "--const shape=" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_const_option_binds_the_value(tmp_path):
    path = save(_reshape_model(), tmp_path / "m.onnx")
    np.save(tmp_path / "shape.npy", np.array([4, 6], np.int64))
    out = tmp_path / "out"
    proc = run_cli("compile", path, "-o", out, "--const", f"shape={tmp_path / 'shape.npy'}")
    assert proc.returncode == 0, proc.stderr
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    y = mcucomp.host.load(out).run({"x": x})["y"]
    np.testing.assert_array_equal(y, np.maximum(x, 0).reshape(4, 6))
    proc = run_cli("verify", path, "--inputs", "3", "--const", f"shape={tmp_path / 'shape.npy'}")
    assert proc.returncode == 0, proc.stderr


def test_const_value_must_match_the_input_type(tmp_path):
    with pytest.raises(McucompError, match=r"--const shape: the value is float64, but input 'shape' is int64"):
        mcucomp.compile_model(_reshape_model(), tmp_path / "out", constants={"shape": np.array([4.0, 6.0])})


def test_compile_leaves_the_callers_model_unchanged(tmp_path):
    model = _reshape_model()
    before = model.SerializeToString()
    mcucomp.compile_model(model, tmp_path / "out", constants={"shape": np.array([4, 6], np.int64)})
    assert model.SerializeToString() == before
