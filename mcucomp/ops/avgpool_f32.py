"""Float32 AveragePool (pads, strides, ceil_mode, count_include_pad) and GlobalAveragePool."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, all_float32, canonical_pool_window, conv_geom, rank_is_3_or_4


def _no_dilation(node: Node, g: Graph) -> bool:
    """AveragePool dilations (opset 19) must all be 1."""
    return all(d == 1 for d in node.attrs.get("dilations", [1]))


class AvgPoolF32(KernelOp):
    """AveragePool and GlobalAveragePool on float32 NCW/NCHW tensors."""

    name = "avgpool_f32"
    onnx_ops = ("AveragePool", "GlobalAveragePool")
    constraints = (all_float32, rank_is_3_or_4, _no_dilation)

    def lower(self, node: Node, g: Graph) -> None:
        """Canonical window; count_include_pad defaults to 0."""
        canonical_pool_window(node, g)
        node.attrs.setdefault("count_include_pad", 0)
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_avgpool_f32(params, x, y)."""
        pads = node.attrs["pads"]
        return KernelCall(self.name, [("g", conv_geom(node, g)), ("pad_b", pads[2]), ("pad_r", pads[3]),
                                      ("count_include_pad", int(node.attrs["count_include_pad"]))],
                          [node.inputs[0], node.outputs[0]])


OP = AvgPoolF32()
