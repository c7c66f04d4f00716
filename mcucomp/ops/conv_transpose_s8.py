"""int8 transposed convolution (1-D, 2-D; groups, strides, dilations, pads) lowered from DQ → ConvTranspose → Q:
int32 sums of (x - x_zp)(w - w_zp[oc]) over the taps that reach each output, plus the int32 bias, requantized per
output channel (QLinearConvTranspose's semantics; onnxruntime has no CPU kernel for it in QOperator form)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._layout import is_nhwc
from ._window import spatial_rank, window_geom
from .base import ArrayRef, KernelCall, KernelOp, numel, shape


class ConvTransposeS8(KernelOp):
    """attrs: canonical 2-D window (kernel, strides, dilations, begin/end pads), group, x_zp, w_zp (per output
    channel or None), rq (mcucomp.quant.Requant, per output channel); weights [c_in, c_out / group, k_h, k_w]."""

    name = "conv_transpose_s8"
    cost_paths = ("gather",)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_conv_transpose_s8(params, x, w, bias|NULL, y); params.nhwc says the activations' layout."""
        rq_fields, arrays = node.attrs["rq"].params(node.name)
        w_zp = node.attrs.get("w_zp")
        if w_zp is not None:
            arrays[f"{node.name}_wzp"] = w_zp
        bias = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        return KernelCall(
            self.name,
            [("g", window_geom(node, g, group=node.attrs.get("group", 1))), ("x_zp", node.attrs["x_zp"]),
             ("w_zp", ArrayRef(f"{node.name}_wzp") if w_zp is not None else "NULL"), ("rq", rq_fields),
             ("nhwc", int(is_nhwc(node)))],
            [node.inputs[0], node.inputs[1], bias, node.outputs[0]],
            arrays,
        )

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout for 1-D and 2-D data: the loops index x and y through per-layout strides."""
        return spatial_rank(node, g) <= 2

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per output: every kernel tap tested for a source pixel; per tap that has one, a dot over the group's
        input channels."""
        w = shape(g, node.inputs[1])
        outputs = g.tensors[node.outputs[0]].size
        return "gather", {"calls": 1, "outputs": outputs, "taps": outputs * numel(w[2:]), "macs": self.macs(node, g)}

    def macs(self, node: Node, g: Graph) -> int:
        """Input elements times the kernel volume times the output channels of one group."""
        w = shape(g, node.inputs[1])
        return g.tensors[node.inputs[0]].size * w[1] * numel(w[2:])


OP = ConvTransposeS8()
