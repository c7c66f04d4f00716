"""int8 addition with broadcasting, in onnxruntime's QLinearAdd or float (DQ, Add, Q) arithmetic."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from ._overlap import elementwise
from ._layout import all_images
from .base import KernelCall, KernelOp, OverlapMargin, broadcast_params


class AddS8(KernelOp):
    """attrs: mode ('qlinear' | 'float'), a/b/y scale and zp, qmin, qmax, offsets (128 per uint8-run tensor)."""

    name = "add_s8"

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_add_s8(params, a, b, y)."""
        a = node.attrs
        f32 = np.float32
        r_ay = f32(a["a_scale"]) / f32(a["y_scale"])
        r_by = f32(a["b_scale"]) / f32(a["y_scale"])
        # onnxruntime's compiled QLinearAdd contracts a_zp·r_ay + b_zp·r_by into one FMA: emulate it in float64,
        # where the product of two float32 values is exact, then round once.
        off = a.get("offsets", (0, 0, 0))
        b_term = f32(r_by * f32(a["b_zp"] + off[1]))
        fixed = f32(f32(a["y_zp"] + off[2]) - f32(np.float64(r_ay) * np.float64(a["a_zp"] + off[0])
                                                 + np.float64(b_term)))
        return KernelCall(
            self.name,
            [("bc", broadcast_params(g, node)), ("mode", 0 if a["mode"] == "qlinear" else 1),
             ("a_scale", a["a_scale"]), ("b_scale", a["b_scale"]), ("y_scale", a["y_scale"]),
             ("a_zp", a["a_zp"]), ("b_zp", a["b_zp"]), ("y_zp", a["y_zp"]), ("qmin", a["qmin"]), ("qmax", a["qmax"]),
             ("r_ay", float(r_ay)), ("r_by", float(r_by)), ("fixed", float(fixed)),
             ("a_off", off[0]), ("b_off", off[1]), ("y_off", off[2])],
            [node.inputs[0], node.inputs[1], node.outputs[0]],
        )

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """One loop over the output: two FMAs (QLinearAdd) or two products and a division (float), and a broadcast
        index step per element."""
        return node.attrs["mode"], {"calls": 1, "elements": g.tensors[node.outputs[0]].size}

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout when both inputs are runtime images of the output's rank: the broadcast walks the stored
        shapes, which the layout pass permutes alike."""
        return not any(g.tensors[i].is_const for i in node.inputs) and all_images(node, g)

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """In place: the loop reads a[ia] (ia == i when a is not broadcast) and b[ib], then writes y[i]."""
        return elementwise(node, g)


OP = AddS8()
