"""conv_integer against onnxruntime (uint8, per-tensor zero points) and the ONNX reference (int8, per-channel w zero
points too), exact: pads, strides, dilations, groups, 1-D to 3-D, every operand a runtime tensor."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, check_nodes_with_reference

# (x shape, w shape, w zero point length or 0 for none, attrs)
CASES = [
    ((1, 3, 6, 5), (4, 3, 3, 2), 1, dict(pads=[1, 0, 1, 1], strides=[2, 1])),
    ((2, 4, 5, 5), (4, 2, 2, 3), 1, dict(group=2, dilations=[2, 1])),
    ((1, 2, 9), (3, 2, 3), 0, dict(pads=[2, 1], strides=[2])),
    ((1, 2, 3, 4, 5), (2, 2, 2, 2, 3), 1, dict(pads=[1, 0, 1, 0, 1, 1], strides=[1, 2, 2])),
]
# per-output-channel w zero points (onnxruntime has none; the reference broadcasts them right only for 2-D)
PER_CHANNEL = [
    ((1, 3, 6, 5), (4, 3, 3, 2), 4, dict(pads=[1, 0, 1, 1], strides=[2, 1])),
    ((2, 4, 5, 5), (4, 2, 2, 3), 4, dict(group=2, dilations=[2, 1])),
]


def _nodes(rng, dtype, cases):
    """One ConvInteger per case with x, w, x zero point and w zero point as graph inputs of `dtype`."""
    info = np.iinfo(dtype)
    nodes, inputs, feeds = [], {}, {}
    for i, (x_shape, w_shape, w_zp, attrs) in enumerate(cases):
        values = {f"x{i}": x_shape, f"w{i}": w_shape, f"xz{i}": (), f"wz{i}": (w_zp,) if w_zp else None}
        names = []
        for name, shp in values.items():
            if shp is None:
                continue
            feeds[name] = rng.integers(info.min, info.max + 1, shp).astype(dtype)
            inputs[name] = (dtype, shp)
            names.append(name)
        nodes.append(helper.make_node("ConvInteger", names, [f"y{i}"], **attrs))
    return nodes, inputs, feeds


def test_conv_integer_uint8(tmp_path):
    check_nodes(*_nodes(np.random.default_rng(70), np.uint8, CASES), tmp_path, exact=True)


def test_conv_integer_int8(tmp_path):
    check_nodes_with_reference(*_nodes(np.random.default_rng(71), np.int8, CASES + PER_CHANNEL), tmp_path)
