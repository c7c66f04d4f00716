"""int8 average pooling: integer whole-image path (onnxruntime's QLinearAveragePool) or float DQ/pool/Q path."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from .base import ArrayRef, KernelCall, KernelOp, conv_geom


class AvgPoolS8(KernelOp):
    """attrs: mode ('global_int' | 'float'), x/y scale and zp, qmin, qmax, count_include_pad, canonical window."""

    name = "avgpool_s8"

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_avgpool_s8(params, x, y)."""
        a = node.attrs
        window = a["kernel"][0] * a["kernel"][1]
        f32 = np.float32
        scale = f32(a["x_scale"]) / f32(f32(a["y_scale"]) * f32(window))
        rq = [("scale", "NULL"), ("mult", "NULL"), ("shift", "NULL"), ("per_channel", 0), ("div", 0.0),
              ("zp", a["y_zp"]), ("qmin", a["qmin"]), ("qmax", a["qmax"])]
        arrays = {}
        if a["mode"] == "global_int":
            arrays[f"{node.name}_scale"] = np.array([scale], np.float32)
            rq[0] = ("scale", ArrayRef(f"{node.name}_scale"))
        return KernelCall(
            self.name,
            [("g", conv_geom(node, g, group=1)), ("mode", 0 if a["mode"] == "global_int" else 1),
             ("count_include_pad", int(a.get("count_include_pad", 0))), ("x_scale", a["x_scale"]),
             ("y_scale", a["y_scale"]), ("x_zp", a["x_zp"]), ("rq", rq)],
            [node.inputs[0], node.outputs[0]],
            arrays,
        )

    def macs(self, node: Node, g: Graph) -> int:
        """One add per window element per output."""
        return g.tensors[node.outputs[0]].size * node.attrs["kernel"][0] * node.attrs["kernel"][1]


OP = AvgPoolS8()
