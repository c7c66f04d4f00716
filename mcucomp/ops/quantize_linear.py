"""Standalone QuantizeLinear float32 -> int8/uint8/int16/uint16, per tensor, per axis or blocked; scale and zero point
constant or runtime tensors; bit-exact with onnxruntime."""

from __future__ import annotations

from ..ir import Graph, Node
from ._overlap import elementwise
from ._quant import conversion_terms, per_tensor_image, quant_view, scale_float32, zero_point_name
from .base import DTYPE_CODES, KernelCall, KernelOp, OverlapMargin

OUT_TYPES = ("int8", "uint8", "int16", "uint16")


def _float_to_int(node: Node, g: Graph) -> bool:
    """QuantizeLinear must read float32 and write int8, uint8, int16 or uint16."""
    return g.tensors[node.inputs[0]].dtype == "float32" and g.tensors[node.outputs[0]].dtype in OUT_TYPES


def _float32_precision(node: Node, g: Graph) -> bool:
    """QuantizeLinear's `precision` attribute, when set, must be float (x / scale is computed in float32)."""
    return int(node.attrs.get("precision", 0)) in (0, 1)


class QuantizeLinear(KernelOp):
    """QuantizeLinear left over after QDQ lowering (e.g. at a graph boundary)."""

    name = "quantize_linear"
    cost_paths = ("per_tensor_8bit", "default")
    onnx_ops = ("QuantizeLinear",)
    constraints = (_float_to_int, scale_float32, _float32_precision)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_quantize_linear(params{view, scale strides, dtype}, x, scale, zero_point or NULL, y)."""
        params = quant_view(node, g) + [("dtype", DTYPE_CODES[g.tensors[node.outputs[0]].dtype])]
        return KernelCall(self.name, params, [node.inputs[0], node.inputs[1], zero_point_name(node), node.outputs[0]])

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """_quant.conversion_terms; the per-tensor 8-bit loop multiplies by 1 / scale and divides only near rounding
        ties (everywhere for a runtime scale without a normal reciprocal)."""
        return conversion_terms(node, g, node.outputs[0])

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout per tensor (one flat loop), so a graph I/O conversion can sit on the 8-bit side."""
        return per_tensor_image(node, g)

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """Narrowing (4 bytes in, 1 out): one pass over `at` reads x[at], then stores y[at] through a char type.

        16-bit output gets none: float loads and 16-bit stores may be reordered under C's strict aliasing.
        """
        return elementwise(node, g)


OP = QuantizeLinear()
