"""loss_f32 against onnxruntime: SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss with every reduction,
class weights (runtime tensors), ignore_index (including targets equal to it), log_prob, 2-D to 5-D scores.

Tolerance: the kernel sums the losses in double and its log-softmax uses mcu_expf/mcu_logf; onnxruntime sums in
float32 with its own exp and log. Outputs agree within 2 ulp(max|ref|) (helpers.FLOAT_ULPS)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers import check_nodes, rand


def loss_case(op, x_shape, reduction, weight, ignore_index, log_prob, seed):
    """(nodes, inputs, feeds) of one loss node on random scores and targets (a third of them = ignore_index)."""
    rng = np.random.default_rng(seed)
    c = x_shape[1]
    t_shape = x_shape[:1] + x_shape[2:]
    target = rng.integers(0, c, size=t_shape).astype(np.int64)
    if ignore_index is not None:
        target[rng.random(t_shape) < 0.3] = ignore_index
    feeds = {"x": rand(rng, *x_shape), "t": target}
    inputs = {"x": (np.float32, x_shape), "t": (np.int64, t_shape)}
    if weight:
        feeds["w"] = rng.random(c).astype(np.float32) + 0.5
        inputs["w"] = (np.float32, (c,))
    attrs = {"reduction": reduction} | ({} if ignore_index is None else {"ignore_index": ignore_index})
    outs = ["loss", "log_prob"] if log_prob else ["loss"]
    return [helper.make_node(op, list(inputs), outs, **attrs)], inputs, feeds


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_softmax_cross_entropy(tmp_path, reduction):
    nodes, inputs, feeds = loss_case("SoftmaxCrossEntropyLoss", (3, 7, 2, 5), reduction, True, 2, True, 1)
    check_nodes(nodes, inputs, feeds, tmp_path, opset=13)


@pytest.mark.parametrize("x_shape", [(4, 5), (2, 3, 1, 3, 2)])
def test_softmax_cross_entropy_no_log_prob(tmp_path, x_shape):
    """Without log_prob the log-softmax goes through the scratch; no weights, negative ignore_index."""
    nodes, inputs, feeds = loss_case("SoftmaxCrossEntropyLoss", x_shape, "mean", False, -1, False, 2)
    check_nodes(nodes, inputs, feeds, tmp_path, opset=13)


@pytest.mark.parametrize("reduction,weight,ignore", [("none", False, None), ("sum", True, 1), ("mean", True, None),
                                                     ("mean", False, 0)])
def test_negative_log_likelihood(tmp_path, reduction, weight, ignore):
    nodes, inputs, feeds = loss_case("NegativeLogLikelihoodLoss", (3, 5, 7), reduction, weight, ignore, False, 3)
    check_nodes(nodes, inputs, feeds, tmp_path, opset=13)
