"""int8 convolution (general, depthwise, 1x1 via groups/kernel) lowered from QLinearConv or DQ→Conv→Q."""

from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..ir import Graph, Node
from ._cost import params_dict, requant_terms, window
from ._overlap import conv_overlap, pointwise
from ._window import window_geom
from .base import ArrayRef, KernelCall, KernelOp, OverlapMargin, shape


PATHS = {"general": 0, "depthwise": 1}  # MCU_CONV2D_S8_* in runtime_c/kernels/conv2d_s8.h


def depthwise(node: Node, g: Graph) -> bool:
    """group == c_in == c_out (one input plane per output plane): the depthwise fast path."""
    c_in = shape(g, node.inputs[0])[1]
    return node.attrs.get("group", 1) == c_in == shape(g, node.outputs[0])[1]


def folded_bias(g: Graph, node: Node) -> np.ndarray:
    """bias[oc] - x_zp * sum_k (w[oc][k] - w_zp[oc]): the fast paths' accumulator start (exact in int32)."""
    w = g.const(node.inputs[1]).astype(np.int64).reshape(shape(g, node.inputs[1])[0], -1)
    w_zp = node.attrs.get("w_zp")
    if w_zp is not None:
        w = w - np.asarray(w_zp, np.int64)[:, None]
    bias = g.const(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    folded = (0 if bias is None else bias.astype(np.int64)) - node.attrs["x_zp"] * w.sum(axis=1)
    if np.abs(folded).max() >= 2**31:
        raise ModelError(f"Conv '{node.name}': bias and zero-point terms overflow int32; requantize the model.")
    return folded.astype(np.int32)


class Conv2dS8(KernelOp):
    """Quantized Conv: attrs x_zp, w_zp (array or None), rq (mcucomp.quant.Requant) and canonical window."""

    name = "conv2d_s8"

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_conv2d_s8(params, x, w, bias|NULL, y, scratch|NULL); a scratch (c_in bytes) means pointwise."""
        rq_fields, arrays = node.attrs["rq"].params(node.name)
        w_zp = node.attrs.get("w_zp")
        if w_zp is not None:
            arrays[f"{node.name}_wzp"] = w_zp
        bias = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        scratch = shape(g, node.inputs[0])[1] if pointwise(node, g) else 0
        path = PATHS["depthwise"] if depthwise(node, g) else PATHS["general"]
        if scratch or path:
            arrays[f"{node.name}_kbias"] = folded_bias(g, node)
        return KernelCall(
            self.name,
            [("g", window_geom(node, g, group=node.attrs.get("group", 1))), ("x_zp", node.attrs["x_zp"]),
             ("w_zp", ArrayRef(f"{node.name}_wzp") if w_zp is not None else "NULL"), ("rq", rq_fields),
             ("path", path), ("kbias", ArrayRef(f"{node.name}_kbias") if scratch or path else "NULL")],
            # the C signature ends in `void *scratch`: codegen appends it when scratch > 0, else it is NULL
            [node.inputs[0], node.inputs[1], bias, node.outputs[0]] + ([] if scratch else [None]),
            arrays,
            scratch,
        )

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """Exactly in place when pointwise (pixel by pixel through the scratch); the window margin when depthwise,
        since the general loop then goes plane by plane (see mcucomp/ops/_overlap.py)."""
        return conv_overlap(node, g)

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Pointwise: per pixel a c_in gather, per output a c_in dot; depthwise: unchecked taps of windows inside the
        input, checked taps elsewhere; general: per output the kernel rows entered, the taps checked and read."""
        call = self.call(node, g)
        p = params_dict(call)
        geom, win = p["g"], window(p["g"])
        planes = geom["n"] * geom["c_out"]
        outputs = planes * win.pixels
        terms = {"calls": 1, **requant_terms(p["rq"], outputs)}
        if call.scratch_bytes:
            return "pointwise", {**terms, "pixels": win.pixels, "gathered": win.pixels * geom["c_in"],
                                 "macs": outputs * geom["c_in"]}
        if p["path"] == PATHS["depthwise"]:
            border = win.pixels - win.inside_pixels
            return "depthwise", {**terms, "rows": planes * geom["h_out"],
                                 "inside_kernel_rows": planes * win.inside_pixels * geom["k_h"],
                                 "inside_taps": planes * win.inside_pixels * win.taps,
                                 "border_kernel_rows": planes * border * geom["k_h"],
                                 "border_taps": planes * border * win.taps,
                                 "border_valid_taps": planes * (win.taps_valid - win.inside_pixels * win.taps)}
        cin_g = geom["c_in"] // geom["group"]
        return "general", {**terms, "channel_loops": outputs * cin_g, "kernel_rows": outputs * cin_g * geom["k_h"],
                           "rows_entered": planes * cin_g * win.rows_valid,
                           "row_taps": planes * cin_g * win.rows_valid * geom["k_w"],
                           "valid_taps": planes * cin_g * win.taps_valid}

    def macs(self, node: Node, g: Graph) -> int:
        """Output elements times the kernel volume of one group."""
        w = shape(g, node.inputs[1])
        k = 1
        for d in w[1:]:
            k *= d
        return g.tensors[node.outputs[0]].size * k


OP = Conv2dS8()
