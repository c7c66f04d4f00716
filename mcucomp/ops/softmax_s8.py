"""int8 softmax: dequantize a row, onnxruntime's float softmax, quantize (what onnxruntime runs for DQ→Softmax→Q)."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, shape


class SoftmaxS8(KernelOp):
    """attrs: axis (normalized), x/y scale and zp, qmin, qmax."""

    name = "softmax_s8"

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_softmax_s8(params, x, y, scratch)."""
        a = node.attrs
        dims = shape(g, node.inputs[0])
        axis = a["axis"]
        outer, inner = int(np.prod(dims[:axis])), int(np.prod(dims[axis + 1:]))
        return KernelCall(
            self.name,
            [("outer", outer), ("axis_len", dims[axis]), ("inner", inner), ("x_scale", a["x_scale"]),
             ("y_scale", a["y_scale"]), ("x_zp", a["x_zp"]), ("y_zp", a["y_zp"]), ("qmin", a["qmin"]),
             ("qmax", a["qmax"])],
            [node.inputs[0], node.outputs[0]],
            scratch_bytes=4 * dims[axis],
        )


OP = SoftmaxS8()
