"""binary_f64: binary_f32's tests on float64 (exact against onnxruntime, Mod fmod=0 against the ONNX reference)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import test_binary_f32
from helpers import check_nodes


def test_arithmetic_broadcasting(tmp_path):
    rng = np.random.default_rng(36)
    a, b = rng.standard_normal((3, 4, 5)), rng.standard_normal((4, 1))
    nodes = [helper.make_node(op, ["a", "b"], [f"y_{op}"]) for op in ("Add", "Sub", "Mul", "Div")]
    check_nodes(nodes, {"a": (np.float64, a.shape), "b": (np.float64, b.shape)}, {"a": a, "b": b}, tmp_path,
                exact=True)


def test_max_min_fmod_edges(tmp_path):
    test_binary_f32.test_max_min_fmod_edges(tmp_path, np.float64)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_python_mod(tmp_path):
    test_binary_f32.test_python_mod(tmp_path, np.float64)
