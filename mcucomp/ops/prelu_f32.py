"""Float32 PRelu: y = x < 0 ? slope * x : x, the slope broadcast to x (constant or a runtime tensor)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._overlap import elementwise
from .base import (MAX_RANK, KernelCall, KernelOp, OverlapMargin, all_float32, broadcast_params, broadcast_strides,
                   collapse_dims, shape)


def _broadcast_rank_fits(node: Node, g: Graph) -> bool:
    """The broadcast of slope to X must merge into at most 6 dims."""
    out = shape(g, node.outputs[0])
    dims, _ = collapse_dims(out, broadcast_strides(shape(g, node.inputs[0]), out),
                            broadcast_strides(shape(g, node.inputs[1]), out))
    return len(dims) <= MAX_RANK


class PReluF32(KernelOp):
    """PRelu on float32 tensors with numpy broadcasting of the slope."""

    name = "prelu_f32"
    onnx_ops = ("PRelu",)
    constraints = (all_float32, _broadcast_rank_fits)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_prelu_f32(params{count, bc}, x, slope, y)."""
        return KernelCall(self.name, [("count", g.tensors[node.outputs[0]].size), ("bc", broadcast_params(g, node))],
                          [node.inputs[0], node.inputs[1], node.outputs[0]])

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads x[i] (x is never broadcast: it has the output's shape), then writes y[i]."""
        return elementwise(node, g)


OP = PReluF32()
