"""Standalone QuantizeLinear float32 -> int8/uint8, per tensor or per axis, bit-exact with onnxruntime."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, quant_arrays, quant_axis_view, quant_params_constant


def _float_to_8bit(node: Node, g: Graph) -> bool:
    """QuantizeLinear must read float32 and write int8 or uint8."""
    return g.tensors[node.inputs[0]].dtype == "float32" and g.tensors[node.outputs[0]].dtype in ("int8", "uint8")


class QuantizeLinear(KernelOp):
    """QuantizeLinear left over after QDQ lowering (e.g. at a graph boundary)."""

    name = "quantize_linear"
    onnx_ops = ("QuantizeLinear",)
    constraints = (_float_to_8bit, quant_params_constant)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_quantize_linear(params{outer, channels, inner, is_signed, scale, zero_point}, x, y)."""
        fields, arrays = quant_arrays(node, g)
        params = quant_axis_view(node, g, node.inputs[0]) + [
            ("is_signed", int(g.tensors[node.outputs[0]].dtype == "int8"))] + fields
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0]], arrays)


OP = QuantizeLinear()
