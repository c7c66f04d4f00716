"""8-bit codes between uint8 and int8 (XOR 0x80, i.e. -128 with the zero point shifted alike): where a uint8 graph
input or output meets the int8 kernels (inserted by mcucomp.passes.qutil.to_int8_domain)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._overlap import elementwise
from ._layout import same_image
from .base import KernelCall, KernelOp, OverlapMargin


class Recode8(KernelOp):
    """y = x XOR 0x80 byte by byte: uint8 code u is the int8 code u - 128, and back."""

    name = "recode8"

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_recode8(params{count}, x, y)."""
        return KernelCall(self.name, [("count", g.tensors[node.outputs[0]].size)], [node.inputs[0], node.outputs[0]])

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout: the loop walks `count` elements in storage order."""
        return same_image(node, g)

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """One ascending pass reading x[i] then writing y[i] (bytes): in place."""
        return elementwise(node, g)


OP = Recode8()
