"""int8 transposed convolution (1-D, 2-D; groups, strides, dilations, pads) lowered from DQ → ConvTranspose → Q:
int32 sums of (x - x_zp)(w - w_zp[oc]) over the taps that reach each output, plus the int32 bias, requantized per
output channel (QLinearConvTranspose's semantics; onnxruntime has no CPU kernel for it in QOperator form)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._cost import params_dict, requant_terms
from ._layout import is_nhwc
from ._window import spatial_rank, window_geom
from .base import ArrayRef, KernelCall, KernelOp, numel, shape


def _sources(out_len: int, k: int, stride: int, dil: int, pad: int, in_len: int) -> list[int]:
    """Per output position along one axis: how many kernel taps have a source position (the C's src_index)."""
    def valid(t: int) -> bool:
        """src_index's test of o + pad - k * dil."""
        return t >= 0 and t % stride == 0 and t // stride < in_len
    return [sum(valid(o + pad - j * dil) for j in range(k)) for o in range(out_len)]


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
        """Per output a requantization and every kernel row tested for a source row (a division); per row that has
        one every tap of the row tested; per tap that has a source pixel a dot over the group's input channels."""
        p = params_dict(self.call(node, g))
        geom = p["g"]
        rows = _sources(geom["h_out"], geom["k_h"], geom["stride_h"], geom["dil_h"], geom["pad_t"], geom["h_in"])
        cols = _sources(geom["w_out"], geom["k_w"], geom["stride_w"], geom["dil_w"], geom["pad_l"], geom["w_in"])
        planes = geom["n"] * geom["c_out"]
        outputs = planes * geom["h_out"] * geom["w_out"]
        taps = planes * sum(rows) * sum(cols)
        return "gather", {"calls": 1, "outputs": outputs, "row_checks": outputs * geom["k_h"],
                          "tap_checks": planes * sum(rows) * geom["w_out"] * geom["k_w"], "taps": taps,
                          "macs": taps * (geom["c_in"] // geom["group"]), **requant_terms(p["rq"], outputs)}

    def macs(self, node: Node, g: Graph) -> int:
        """Input elements times the kernel volume times the output channels of one group."""
        w = shape(g, node.inputs[1])
        return g.tensors[node.inputs[0]].size * w[1] * numel(w[2:])


OP = ConvTransposeS8()
