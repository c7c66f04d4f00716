"""deform_conv_f32 against onnxruntime: groups, offset groups, strides, dilations, pads, bias and mask, offsets
that move taps between pixels and outside the image."""

from __future__ import annotations

import numpy as np
from onnx import helper

from helpers import check_nodes, infer_outputs, rand

# (x shape, w shape, offset groups, bias, mask, attrs)
CASES = [
    ((1, 2, 5, 6), (3, 2, 2, 3), 1, True, True, dict(pads=[1, 0, 1, 1], strides=[2, 1])),
    ((2, 4, 5, 5), (4, 2, 3, 2), 2, False, True, dict(group=2, dilations=[1, 2])),
    ((1, 2, 4, 4), (2, 2, 2, 2), 2, True, False, dict()),
]


def test_deform_conv_cases(tmp_path):
    rng = np.random.default_rng(90)
    nodes, inputs, feeds = [], {}, {}
    for i, (x_shape, w_shape, groups, bias, mask, attrs) in enumerate(CASES):
        probe = helper.make_node("Conv", ["x", "w"], ["y"], **attrs)
        out = infer_outputs([probe], {"x": (np.float32, x_shape), "w": (np.float32, w_shape)})["y"][1]
        taps = w_shape[2] * w_shape[3]
        values = {f"x{i}": rand(rng, *x_shape), f"w{i}": rand(rng, *w_shape),
                  f"o{i}": rand(rng, x_shape[0], groups * taps * 2, *out[2:]) * 1.5}
        if bias:
            values[f"b{i}"] = rand(rng, w_shape[0])
        if mask:
            values[f"m{i}"] = rng.random((x_shape[0], groups * taps, *out[2:]), np.float32)
        names = [f"x{i}", f"w{i}", f"o{i}", f"b{i}" if bias else "", f"m{i}" if mask else ""]
        while not names[-1]:
            names.pop()
        for name, value in values.items():
            inputs[name], feeds[name] = (np.float32, value.shape), value
        nodes.append(helper.make_node("DeformConv", names, [f"y{i}"], offset_group=groups, **attrs))
    check_nodes(nodes, inputs, feeds, tmp_path, opset=19)
