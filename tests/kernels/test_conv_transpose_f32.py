"""conv_transpose_f32 against onnxruntime: 1-D, 2-D, 3-D; strides, dilations, groups, pads, output_padding,
output_shape, auto_pad; weights and bias as runtime tensors or initializers."""

from __future__ import annotations

import numpy as np

from float_cases import weighted_nodes
from helpers import check_nodes

# (input shape, weight shape, bias, attrs)
CASES = [
    ((1, 3, 4, 5), (3, 2, 3, 3), True, dict(strides=[2, 3], pads=[1, 0, 2, 1])),
    ((2, 4, 3, 3), (4, 3, 2, 3), True, dict(group=2, dilations=[2, 1], output_padding=[1, 0], strides=[2, 2])),
    ((1, 2, 3, 4), (2, 1, 3, 3), False, dict(strides=[3, 2], output_shape=[10, 9])),
    ((1, 2, 5, 4), (2, 2, 3, 3), True, dict(auto_pad="SAME_UPPER")),
    ((1, 1, 4, 4), (1, 3, 3, 1), False, dict(auto_pad="SAME_LOWER", dilations=[1, 1])),
    ((2, 3, 6), (3, 2, 4), True, dict(strides=[2], pads=[1, 2])),
    ((1, 2, 3, 2, 4), (2, 2, 2, 3, 2), True, dict(strides=[2, 1, 2], pads=[0, 1, 1, 1, 0, 0], dilations=[1, 1, 2])),
]


def _nodes(rng, runtime: bool):
    """One ConvTranspose per case (the bias has c_out = w.shape[1] * group elements)."""
    return weighted_nodes("ConvTranspose", CASES, lambda w, attrs: w[1] * attrs.get("group", 1), rng, runtime)


def test_conv_transpose_runtime_weights(tmp_path):
    nodes, inputs, feeds, inits = _nodes(np.random.default_rng(40), runtime=True)
    check_nodes(nodes, inputs, feeds, tmp_path, inits)


def test_conv_transpose_constant_weights(tmp_path):
    nodes, inputs, feeds, inits = _nodes(np.random.default_rng(41), runtime=False)
    check_nodes(nodes, inputs, feeds, tmp_path, inits)
