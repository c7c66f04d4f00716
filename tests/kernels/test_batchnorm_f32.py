"""batchnorm_f32 against onnxruntime: runtime parameters (graph inputs), constant parameters behind a producer
fold_batchnorm cannot fold into, ranks 2 to 5; training mode is refused with its reason."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import mcucomp
from helpers import check_model, check_nodes, make_model, rand
from mcucomp.errors import UnsupportedError


def _params(rng, c):
    """scale, bias, mean and a positive variance for c channels."""
    return {"s": rand(rng, c), "b": rand(rng, c), "m": rand(rng, c), "v": np.abs(rand(rng, c)) + 0.1}


@pytest.mark.parametrize("dims", [(3, 4), (2, 4, 7), (2, 4, 3, 5), (1, 4, 2, 3, 2)])
def test_batchnorm_runtime_params(tmp_path, dims):
    rng = np.random.default_rng(70)
    feeds = {"x": rand(rng, *dims), **_params(rng, dims[1])}
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], epsilon=1e-3)
    check_nodes([node], {k: (np.float32, v.shape) for k, v in feeds.items()}, feeds, tmp_path, opset=15)


def test_batchnorm_constant_params_after_relu(tmp_path):
    """A Relu producer cannot absorb the scale: the BatchNormalization stays standalone."""
    rng = np.random.default_rng(71)
    x = rand(rng, 2, 3, 4, 4)
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("BatchNormalization", ["r", "s", "b", "m", "v"], ["y"])]
    model = make_model(nodes, {"x": (np.float32, x.shape)}, {"y": (np.float32, x.shape)}, _params(rng, 3), opset=15)
    check_model(model, {"x": x}, tmp_path)


def test_batchnorm_training_mode_refused(tmp_path):
    rng = np.random.default_rng(72)
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"], training_mode=1)
    outputs = {"y": (np.float32, (2, 3, 4)), "rm": (np.float32, (3,)), "rv": (np.float32, (3,))}
    model = make_model([node], {"x": (np.float32, (2, 3, 4))}, outputs, _params(rng, 3), opset=15)
    with pytest.raises(UnsupportedError, match="training_mode"):
        mcucomp.compile_model(model, tmp_path, name="m")
