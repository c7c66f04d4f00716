"""Small ONNX models and a CLI runner shared by the command-line, error and verify tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO = Path(__file__).resolve().parents[1]


def save(model: onnx.ModelProto, path: Path) -> Path:
    """Write a model built with onnx.helper (IR version 8, which onnxruntime 1.31 accepts) and return its path."""
    model.ir_version = 8
    onnx.save(model, path)
    return path


def make_model(nodes, inputs, outputs, initializers=(), opsets=(("", 13),)) -> onnx.ModelProto:
    """A ModelProto from helper parts; `inputs`/`outputs` are (name, elem_type, dims) triples."""
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, t, d) for n, t, d in inputs],
        [helper.make_tensor_value_info(n, t, d) for n, t, d in outputs],
        list(initializers),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])


def two_conv_model(in_name: str = "x", out_name: str = "y", in_dims=(1, 1, 8, 8)) -> onnx.ModelProto:
    """x[1,1,8,8] → conv1 (4 ch, 3x3, pad 1) → h → conv2 (2 ch, 3x3, pad 1) → y, float32, seeded weights."""
    rng = np.random.default_rng(7)
    weights = [numpy_helper.from_array(rng.standard_normal(s).astype(np.float32), n)
               for n, s in (("w1", (4, 1, 3, 3)), ("b1", (4,)), ("w2", (2, 4, 3, 3)), ("b2", (2,)))]
    nodes = [helper.make_node("Conv", [in_name, "w1", "b1"], ["h"], name="conv1", pads=[1, 1, 1, 1]),
             helper.make_node("Conv", ["h", "w2", "b2"], [out_name], name="conv2", pads=[1, 1, 1, 1])]
    return make_model(nodes, [(in_name, TensorProto.FLOAT, list(in_dims))],
                      [(out_name, TensorProto.FLOAT, [1, 2, 8, 8])], weights)


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run `python -m mcucomp ARGS` in a fresh process; return the completed process (text output)."""
    env = dict(os.environ)
    env.pop("MCUCOMP_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "mcucomp", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd or REPO, env=env, timeout=300)
