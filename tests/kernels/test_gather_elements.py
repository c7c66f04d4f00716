"""gather_elements against onnxruntime (exact): every axis of a 3-D tensor, negative indices, int32 indices."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, rand


def test_gather_elements_axes(tmp_path):
    rng = np.random.default_rng(170)
    x = rand(rng, 3, 4, 5)
    inputs, feeds, nodes = {"x": (np.float32, x.shape)}, {"x": x}, []
    for axis in (0, 1, -1):
        shp = [3, 4, 5]
        n = shp[axis]
        shp[axis] = 2
        idx = rng.integers(-n, n, shp).astype(np.int64 if axis else np.int32)
        inputs[f"i{axis}"] = (idx.dtype, idx.shape)
        feeds[f"i{axis}"] = idx
        nodes.append(helper.make_node("GatherElements", ["x", f"i{axis}"], [f"y{axis}"], axis=axis))
    check_nodes(nodes, inputs, feeds, tmp_path, exact=True)


def test_gather_elements_int8_constant_indices(tmp_path):
    q = np.random.default_rng(171).integers(-128, 128, (2, 3), dtype=np.int8)
    node = helper.make_node("GatherElements", ["q", "i"], ["y"], axis=1)
    check_nodes([node], {"q": (np.int8, q.shape)}, {"q": q}, tmp_path,
                initializers={"i": np.array([[2, 0, -1, 1], [0, 0, 1, -3]], np.int64)}, exact=True)
