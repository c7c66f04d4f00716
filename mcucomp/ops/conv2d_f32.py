"""Float32 convolution (1-D, 2-D, 3-D): general, depthwise and 1x1, with groups, dilations, pads and fused clamp.

Weights and bias may be runtime tensors (graph inputs), not only initializers."""

from __future__ import annotations

import math

from ..ir import Graph, Node
from ._conv2d_f32.depthwise import depthwise, depthwise_terms
from ._overlap import conv_overlap, pointwise
from ._cost import params_dict, window
from ._window import canonical_nd, depth_fields, is_3d, rank_1_to_3, window_geom
from .base import KernelCall, KernelOp, OverlapMargin, all_float32, shape


class Conv2dF32(KernelOp):
    """Conv on float32 tensors."""

    name = "conv2d_f32"
    cost_paths = ("pointwise", "general", "depthwise3x3", "depthwise")
    onnx_ops = ("Conv",)
    constraints = (all_float32, rank_1_to_3)

    def lower(self, node: Node, g: Graph) -> None:
        """Canonical window attributes and an unbounded activation range."""
        canonical_nd(node, g, list(shape(g, node.inputs[1])[2:]))
        node.attrs.setdefault("act_min", -math.inf)
        node.attrs.setdefault("act_max", math.inf)
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_conv2d_f32(params, x, w, bias|NULL, y, scratch|NULL); a scratch (c_in floats) means pointwise;
        depthwise convs call mcu_conv2d_f32_depthwise(params, x, w, bias|NULL, y) (its own file)."""
        bias = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        if depthwise(node, g):
            return KernelCall(
                f"{self.name}_depthwise",
                [("g", window_geom(node, g, group=node.attrs["group"])), *depth_fields(node, g),
                 ("act_min", float(node.attrs["act_min"])), ("act_max", float(node.attrs["act_max"]))],
                [node.inputs[0], node.inputs[1], bias, node.outputs[0]])
        scratch = 4 * shape(g, node.inputs[0])[1] if not is_3d(node, g) and pointwise(node, g) else 0
        return KernelCall(
            self.name,
            [("g", window_geom(node, g, group=node.attrs.get("group", 1))), *depth_fields(node, g),
             ("act_min", float(node.attrs["act_min"])), ("act_max", float(node.attrs["act_max"]))],
            # the C signature ends in `void *scratch`: codegen appends it when scratch > 0, else it is NULL
            [node.inputs[0], node.inputs[1], bias, node.outputs[0]] + ([] if scratch else [None]),
            scratch_bytes=scratch,
        )

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """Exactly in place when pointwise (pixel by pixel through the scratch); the window margin when depthwise,
        since the general and depthwise loops go plane by plane, row by row (see mcucomp/ops/_overlap.py); not at all
        for 3-D data."""
        return None if is_3d(node, g) else conv_overlap(node, g)

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Pointwise: per pixel a c_in gather, per output a c_in FMA chain; general: per output the
        kernel planes and rows entered, the taps checked and the taps read; depthwise: see depthwise_terms."""
        call = self.call(node, g)
        p = params_dict(call)
        geom = p["g"]
        if depthwise(node, g):
            return depthwise_terms(geom)
        win = window(geom, p)
        planes = geom["n"] * geom["c_out"]
        outputs = planes * win.pixels
        if call.scratch_bytes:
            return "pointwise", {"calls": 1, "outputs": outputs, "pixels": win.pixels,
                                 "gathered": win.pixels * geom["c_in"], "macs": outputs * geom["c_in"]}
        cin_g = geom["c_in"] // geom["group"]
        return "general", {"calls": 1, "outputs": outputs, "channel_loops": outputs * cin_g * p["k_d"],
                           "kernel_rows": planes * cin_g * win.depth_valid * geom["k_h"],
                           "rows_entered": planes * cin_g * win.rows_valid,
                           "row_taps": planes * cin_g * win.rows_valid * geom["k_w"],
                           "valid_taps": planes * cin_g * win.taps_valid}

    def macs(self, node: Node, g: Graph) -> int:
        """Output elements times the kernel volume of one group."""
        w = shape(g, node.inputs[1])
        out = g.tensors[node.outputs[0]].size
        k = 1
        for d in w[1:]:
            k *= d
        return out * k


OP = Conv2dF32()
