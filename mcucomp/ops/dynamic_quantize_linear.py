"""DynamicQuantizeLinear float32 -> uint8 y, float32 y_scale, uint8 y_zero_point, exactly as the ONNX reference."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, numel, shape


def _float32_in(node: Node, g: Graph) -> bool:
    """DynamicQuantizeLinear must read float32 (its outputs are uint8 and a float32 scale)."""
    return g.tensors[node.inputs[0]].dtype == "float32"


class DynamicQuantizeLinear(KernelOp):
    """Per-tensor asymmetric uint8 quantization with the range measured at run time."""

    name = "dynamic_quantize_linear"
    onnx_ops = ("DynamicQuantizeLinear",)
    constraints = (_float32_in,)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_dynamic_quantize_linear(params{count}, x, y, y_scale, y_zero_point)."""
        params = [("count", numel(shape(g, node.inputs[0])))]
        return KernelCall(self.name, params, [node.inputs[0], *node.outputs])


OP = DynamicQuantizeLinear()
