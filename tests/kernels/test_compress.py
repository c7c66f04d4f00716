"""compress (a gather of constant positions) against onnxruntime (exact): with an axis, flattened, int64 data."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_model, make_model, rand


def test_compress_axis_and_flat(tmp_path):
    """The output lengths depend on the condition values: the graph declares them (shape inference cannot)."""
    rng = np.random.default_rng(160)
    x = rand(rng, 3, 4)
    inits = {"rows": np.array([True, False, True]), "cols": np.array([False, True, True]),
             "flat": np.array([1, 0, 0, 1, 1, 0, 1], bool), "k": np.arange(12, dtype=np.int64).reshape(3, 4)}
    nodes = [helper.make_node("Compress", ["x", "rows"], ["by_rows"], axis=0),
             helper.make_node("Compress", ["x", "cols"], ["by_short_cols"], axis=-1),
             helper.make_node("Compress", ["x", "flat"], ["flattened"]),
             helper.make_node("Compress", ["k", "cols"], ["k_cols"], axis=1)]
    outputs = {"by_rows": (np.float32, (2, 4)), "by_short_cols": (np.float32, (3, 2)),
               "flattened": (np.float32, (4,)), "k_cols": (np.int64, (3, 2))}
    model = make_model(nodes, {"x": (np.float32, x.shape)}, outputs, inits)
    check_model(model, {"x": x}, tmp_path, exact=True)
