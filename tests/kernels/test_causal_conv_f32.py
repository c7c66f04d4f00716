"""causal_conv_f32 against the ONNX reference (onnxruntime has no CausalConvWithState): with and without past state
and bias, SiLU, kernels longer than the input, an unused present_state.

Compared within REFERENCE_ULPS: the reference convolves in numpy's summation order and takes SiLU's exp in numpy,
we accumulate with fused multiply-adds and use mcu_sigmoidf. Measured: at most 1 ULP(max|ref|).
"""

from __future__ import annotations

import numpy as np
from onnx import helper
from onnx.reference import ReferenceEvaluator

import mcucomp
import mcucomp.host
from float_cases import assert_within_ulps
from helpers import infer_outputs, make_model, rand

REFERENCE_ULPS = 2

# (batch, channels, length, k, bias, past state, activation)
CASES = [
    (2, 3, 7, 4, True, True, "silu"),
    (1, 4, 2, 5, False, False, "none"),
    (2, 2, 1, 3, True, True, "swish"),
    (1, 3, 6, 2, False, True, "none"),
]


def test_causal_conv_cases(tmp_path):
    rng = np.random.default_rng(95)
    nodes, inputs, feeds = [], {}, {}
    for i, (batch, channels, length, k, bias, past, act) in enumerate(CASES):
        values = {f"x{i}": rand(rng, batch, channels, length), f"w{i}": rand(rng, channels, 1, k)}
        if bias:
            values[f"b{i}"] = rand(rng, channels)
        if past:
            values[f"s{i}"] = rand(rng, batch, channels, k - 1)
        names = [f"x{i}", f"w{i}", f"b{i}" if bias else "", f"s{i}" if past else ""]
        while not names[-1]:
            names.pop()
        for name, value in values.items():
            inputs[name], feeds[name] = (np.float32, value.shape), value
        nodes.append(helper.make_node("CausalConvWithState", names, [f"y{i}", f"p{i}"], activation=act))
    outputs = infer_outputs(nodes, inputs, None, 27)
    del outputs["p3"]  # present_state unused: the kernel does not write it
    model = make_model(nodes, inputs, outputs, None, 27)
    mcucomp.compile_model(model, tmp_path, name="m")
    ours = mcucomp.host.load(tmp_path).run(feeds)
    names = [o.name for o in model.graph.output]
    for name, want in zip(names, ReferenceEvaluator(model).run(None, feeds)):
        assert_within_ulps(ours[name], want, REFERENCE_ULPS, name)
