"""Standalone DequantizeLinear int8/uint8/int16/uint16/int32 -> float32, per tensor, per axis or blocked, scale and
zero point constant or runtime tensors: (float)(q - zp) * scale."""

from __future__ import annotations

from ..ir import Graph, Node
from ._overlap import elementwise
from ._quant import conversion_terms, per_tensor_image, quant_view, scale_float32, zero_point_name
from .base import DTYPE_CODES, KernelCall, KernelOp, OverlapMargin

IN_TYPES = ("int8", "uint8", "int16", "uint16", "int32")


def _int_to_float(node: Node, g: Graph) -> bool:
    """DequantizeLinear must read int8, uint8, int16, uint16 or int32 and write float32."""
    return g.tensors[node.inputs[0]].dtype in IN_TYPES and g.tensors[node.outputs[0]].dtype == "float32"


class DequantizeLinear(KernelOp):
    """DequantizeLinear left over after QDQ lowering (e.g. at a graph boundary)."""

    name = "dequantize_linear"
    cost_paths = ("per_tensor_8bit", "default")
    onnx_ops = ("DequantizeLinear",)
    constraints = (_int_to_float, scale_float32)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_dequantize_linear(params{view, scale strides, dtype}, x, scale, zero_point or NULL, y)."""
        params = quant_view(node, g) + [("dtype", DTYPE_CODES[g.tensors[node.inputs[0]].dtype])]
        return KernelCall(self.name, params, [node.inputs[0], node.inputs[1], zero_point_name(node), node.outputs[0]])

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """_quant.conversion_terms; the per-tensor 8-bit loop does four elements a turn."""
        return conversion_terms(node, g, node.inputs[0])

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout per tensor (one flat loop), so a graph I/O conversion can sit on the 8-bit side."""
        return per_tensor_image(node, g)

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """Widening (1 byte in, 4 out; negative margin): one pass over `at` reads x[at], then writes y[at].

        int16, uint16 and int32 input get none: their loads and float stores may be reordered under C's strict aliasing.
        """
        return elementwise(node, g)


OP = DequantizeLinear()
