"""int8 convolution (general, depthwise, 1x1 via groups/kernel) lowered from QLinearConv or DQ→Conv→Q."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import ArrayRef, KernelCall, KernelOp, conv_geom, shape


class Conv2dS8(KernelOp):
    """Quantized Conv: attrs x_zp, w_zp (array or None), rq (mcucomp.quant.Requant) and canonical window."""

    name = "conv2d_s8"

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_conv2d_s8(params, x, w, bias|NULL, y)."""
        rq_fields, arrays = node.attrs["rq"].params(node.name)
        w_zp = node.attrs.get("w_zp")
        if w_zp is not None:
            arrays[f"{node.name}_wzp"] = w_zp
        bias = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        return KernelCall(
            self.name,
            [("g", conv_geom(node, g, group=node.attrs.get("group", 1))), ("x_zp", node.attrs["x_zp"]),
             ("w_zp", ArrayRef(f"{node.name}_wzp") if w_zp is not None else "NULL"), ("rq", rq_fields)],
            [node.inputs[0], node.inputs[1], bias, node.outputs[0]],
            arrays,
        )

    def macs(self, node: Node, g: Graph) -> int:
        """Output elements times the kernel volume of one group."""
        w = shape(g, node.inputs[1])
        k = 1
        for d in w[1:]:
            k *= d
        return g.tensors[node.outputs[0]].size * k


OP = Conv2dS8()
