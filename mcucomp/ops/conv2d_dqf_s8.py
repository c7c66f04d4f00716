"""int8 conv that onnxruntime computes in float (DQ → float Conv → Q), in the summation order of its MLAS kernel."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from ..ortcompat import ORDER_FMA, ORDER_M1, ORDER_M1_TRANSB, float_conv_plan
from ._cost import params_dict, window
from ._window import window_geom
from .base import ArrayRef, KernelCall, KernelOp, as4d, shape


class Conv2dDqfS8(KernelOp):
    """attrs: x_zp, x_scale, y_scale, y_zp, qmin, qmax and the canonical window; inputs x, float w, float bias."""

    name = "conv2d_dqf_s8"
    depends = ("mlas_dot",)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_conv2d_dqf_s8(params, x, w_f32, bias_f32|NULL, y, scratch): scratch holds one pixel's taps."""
        a = node.attrs
        w = shape(g, node.inputs[1])
        group = a.get("group", 1)
        n, _, h, wd = as4d(shape(g, node.inputs[0]))
        _, _, oh, ow = as4d(shape(g, node.outputs[0]))
        order, segs = float_conv_plan(n, group, w[0] // group, w[1], [h, wd], a["kernel"], a["strides"],
                                      a["dilations"], a["pads"], [oh, ow])
        arrays = {f"{node.name}_seg_end": np.array([e for e, _ in segs], np.int32),
                  f"{node.name}_seg_kblock": np.array([b for _, b in segs], np.int32)}
        bias = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        return KernelCall(
            self.name,
            [("g", window_geom(node, g, group=group)), ("x_zp", a["x_zp"]), ("x_scale", a["x_scale"]),
             ("y_scale", a["y_scale"]), ("y_zp", a["y_zp"]), ("qmin", a["qmin"]), ("qmax", a["qmax"]),
             ("order", order), ("n_seg", len(segs)), ("seg_end", ArrayRef(f"{node.name}_seg_end")),
             ("seg_kblock", ArrayRef(f"{node.name}_seg_kblock"))],
            [node.inputs[0], node.inputs[1], bias, node.outputs[0]],
            arrays,
            scratch_bytes=4 * int(np.prod(w[1:])),
        )

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Per output (every channel): an im2col gather of all taps (valid ones dequantized), a dot product in the
        MLAS order the plan picks, and a float division."""
        p = params_dict(self.call(node, g))
        geom, win = p["g"], window(p["g"])
        outputs = geom["n"] * geom["c_out"] * win.pixels
        cin_g = geom["c_in"] // geom["group"]
        dot = {ORDER_M1: "dot_m1", ORDER_M1_TRANSB: "dot_m1_transb", ORDER_FMA: "dot_fma"}[p["order"]]
        return "im2col", {"calls": 1, "outputs": outputs, "gather_channels": outputs * cin_g,
                          "gather_rows": outputs * cin_g * geom["k_h"],
                          "gather_taps": outputs * cin_g * win.taps,
                          "gather_valid": geom["n"] * geom["c_out"] * cin_g * win.taps_valid,
                          dot: outputs * cin_g * win.taps}

    def macs(self, node: Node, g: Graph) -> int:
        """Output elements times the kernel volume of one group."""
        return g.tensors[node.outputs[0]].size * int(np.prod(shape(g, node.inputs[1])[1:]))


OP = Conv2dDqfS8()
