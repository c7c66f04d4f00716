"""Float32 Softmax along one axis (opset-13 semantics; older models are converted to opset 13 by the frontend)."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, all_float32, numel, shape


class SoftmaxF32(KernelOp):
    """Softmax on float32 tensors."""

    name = "softmax_f32"
    onnx_ops = ("Softmax",)
    constraints = (all_float32,)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_softmax_f32(params{outer, axis_len, inner}, x, y)."""
        dims = shape(g, node.inputs[0])
        axis = node.attrs.get("axis", -1) % max(len(dims), 1)
        params = [("outer", numel(dims[:axis])), ("axis_len", dims[axis] if dims else 1),
                  ("inner", numel(dims[axis + 1:]))]
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0]])


OP = SoftmaxF32()
