"""Float32 convolution: general, depthwise and 1x1, with groups, dilations, pads and fused clamp."""

from __future__ import annotations

import math

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, all_float32, canonical_window, conv_geom, rank_is_3_or_4, shape


def _weights_constant(node: Node, g: Graph) -> bool:
    """The weights (input 1) must be a constant initializer."""
    return g.const(node.inputs[1]) is not None


def _bias_constant(node: Node, g: Graph) -> bool:
    """The bias (input 2), when present, must be a constant initializer."""
    return len(node.inputs) < 3 or not node.inputs[2] or g.const(node.inputs[2]) is not None


class Conv2dF32(KernelOp):
    """Conv on float32 tensors."""

    name = "conv2d_f32"
    onnx_ops = ("Conv",)
    constraints = (all_float32, rank_is_3_or_4, _weights_constant, _bias_constant)

    def lower(self, node: Node, g: Graph) -> None:
        """Canonical window attributes and an unbounded activation range."""
        canonical_window(node, g, list(shape(g, node.inputs[1])[2:]) if len(shape(g, node.inputs[1])) == 4
                         else [1, shape(g, node.inputs[1])[2]])
        node.attrs.setdefault("act_min", -math.inf)
        node.attrs.setdefault("act_max", math.inf)
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_conv2d_f32(params, x, w, bias|NULL, y)."""
        bias = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        return KernelCall(
            self.name,
            [("g", conv_geom(node, g, group=node.attrs.get("group", 1))),
             ("act_min", float(node.attrs["act_min"])), ("act_max", float(node.attrs["act_max"]))],
            [node.inputs[0], node.inputs[1], bias, node.outputs[0]],
        )

    def macs(self, node: Node, g: Graph) -> int:
        """Output elements times the kernel volume of one group."""
        w = shape(g, node.inputs[1])
        out = g.tensors[node.outputs[0]].size
        k = 1
        for d in w[1:]:
            k *= d
        return out * k


OP = Conv2dF32()
