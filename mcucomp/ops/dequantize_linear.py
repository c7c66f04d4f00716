"""Standalone DequantizeLinear int8/uint8/int32 -> float32, per tensor or per axis: (float)(q - zp) * scale."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, quant_arrays, quant_axis_view, quant_params_constant

IN_TYPES = {"int8": 0, "uint8": 1, "int32": 2}  # MCU_DQ_* in runtime_c/kernels/dequantize_linear.h


def _int_to_float(node: Node, g: Graph) -> bool:
    """DequantizeLinear must read int8, uint8 or int32 and write float32."""
    return g.tensors[node.inputs[0]].dtype in IN_TYPES and g.tensors[node.outputs[0]].dtype == "float32"


class DequantizeLinear(KernelOp):
    """DequantizeLinear left over after QDQ lowering (e.g. at a graph boundary)."""

    name = "dequantize_linear"
    onnx_ops = ("DequantizeLinear",)
    constraints = (_int_to_float, quant_params_constant)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_dequantize_linear(params{outer, channels, inner, in_type, scale, zero_point}, x, y)."""
        fields, arrays = quant_arrays(node, g)
        params = quant_axis_view(node, g, node.inputs[0]) + [
            ("in_type", IN_TYPES[g.tensors[node.inputs[0]].dtype])] + fields
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0]], arrays)


OP = DequantizeLinear()
