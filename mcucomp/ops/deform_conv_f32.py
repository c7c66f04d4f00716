"""Float32 DeformConv (2-D): strides, dilations, pads, groups, offset groups, optional bias and mask; every operand
may be a runtime tensor."""

from __future__ import annotations

from ..ir import Graph, Node
from ._window import canonical_nd, window_geom
from .base import KernelCall, KernelOp, all_float32, shape


def _two_d(node: Node, g: Graph) -> bool:
    """DeformConv is supported on 2-D data (rank-4 input) only, as in the ONNX reference."""
    return len(shape(g, node.inputs[0])) == 4


def _offset_groups(node: Node, g: Graph) -> bool:
    """DeformConv's offset_group must be at least 1 and divide the input channels."""
    groups = int(node.attrs.get("offset_group", 1))
    return groups >= 1 and shape(g, node.inputs[0])[1] % groups == 0


def _input(node: Node, k: int) -> str | None:
    """Name of optional input k, or None."""
    return node.inputs[k] if len(node.inputs) > k and node.inputs[k] else None


class DeformConvF32(KernelOp):
    """DeformConv on float32 NCHW tensors."""

    name = "deform_conv_f32"
    uses_float_mac = True
    onnx_ops = ("DeformConv",)
    constraints = (all_float32, _two_d, _offset_groups)

    def lower(self, node: Node, g: Graph) -> None:
        """Canonical window attributes."""
        canonical_nd(node, g, list(shape(g, node.inputs[1])[2:]))
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_deform_conv_f32(params, x, w, offset, bias|NULL, mask|NULL, y)."""
        params = [("g", window_geom(node, g, group=node.attrs.get("group", 1))),
                  ("offset_group", node.attrs.get("offset_group", 1))]
        return KernelCall(self.name, params, [node.inputs[0], node.inputs[1], node.inputs[2], _input(node, 3),
                                              _input(node, 4), node.outputs[0]])

    def macs(self, node: Node, g: Graph) -> int:
        """Output elements times the kernel volume of one group (plus four per bilinear sample)."""
        w = shape(g, node.inputs[1])
        return g.tensors[node.outputs[0]].size * w[1] * w[2] * w[3] * 5


OP = DeformConvF32()
