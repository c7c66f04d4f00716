"""Float32 SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss (reduction none / sum / mean, optional class
weights, ignore_index, SoftmaxCrossEntropyLoss's optional log_prob output), int64 targets, any number of spatial
dims (viewed as [N, C, D])."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, numel, shape

#: reduction attribute → MCU_LOSS_*.
REDUCTIONS = {"none": 0, "sum": 1, "mean": 2}


def _reduction(node: Node) -> str:
    """The reduction attribute as text."""
    r = node.attrs.get("reduction", "mean")
    return r.decode() if isinstance(r, bytes) else r


def _types(node: Node, g: Graph) -> bool:
    """Scores, weights and outputs must be float32 and the targets int64."""
    floats = [node.inputs[0]] + [n for n in node.inputs[2:3] if n] + [o for o in node.outputs if o]
    return all(g.tensors[n].dtype == "float32" for n in floats) and g.tensors[node.inputs[1]].dtype == "int64"


def _layout(node: Node, g: Graph) -> bool:
    """The scores must be [N, C, d1, ...] with targets [N, d1, ...] and weights [C]; reduction none, sum or mean."""
    xs, ts = shape(g, node.inputs[0]), shape(g, node.inputs[1])
    w = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
    return (len(xs) >= 2 and ts == xs[:1] + xs[2:] and (w is None or shape(g, w) == (xs[1],))
            and _reduction(node) in REDUCTIONS)


class LossF32(KernelOp):
    """Per-element negative log-likelihood (of the log-softmax for SoftmaxCrossEntropyLoss), weighted and reduced."""

    name = "loss_f32"
    depends = ("softmax_f32",)
    onnx_ops = ("SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss")
    constraints = (_types, _layout)

    def lower(self, node: Node, g: Graph) -> None:
        """Record whether a log-softmax comes first."""
        node.attrs["log_softmax"] = int(node.op == "SoftmaxCrossEntropyLoss")
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_loss_f32(params, x, target, weight|NULL, loss, log_prob|NULL[, scratch])."""
        xs = shape(g, node.inputs[0])
        ignore = node.attrs.get("ignore_index")
        log_prob = node.outputs[1] if len(node.outputs) > 1 and node.outputs[1] else None
        softmax = node.attrs["log_softmax"]
        params = [("n", xs[0]), ("c", xs[1]), ("d", numel(xs[2:])), ("log_softmax", softmax),
                  ("reduction", REDUCTIONS[_reduction(node)]), ("has_ignore", int(ignore is not None)),
                  ("ignore_index", int(ignore or 0))]
        weight = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        scratch = 4 * numel(xs[1:]) if softmax and log_prob is None else 0
        # the C signature ends in `void *scratch`: codegen appends it when scratch > 0, else it is NULL
        args = [node.inputs[0], node.inputs[1], weight, node.outputs[0], log_prob] + ([] if scratch else [None])
        return KernelCall(self.name, params, args, scratch_bytes=scratch)


OP = LossF32()
