"""Float32 MaxPool (pads, strides, dilations, ceil_mode; values only) and GlobalMaxPool."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, all_float32, canonical_pool_window, conv_geom, rank_is_3_or_4


def _indices_unused(node: Node, g: Graph) -> bool:
    """MaxPool's Indices output (output 1) must be unused: only the pooled values are computed."""
    extra = [o for o in node.outputs[1:] if o]
    return all(o not in g.outputs and not g.consumers(o) for o in extra)


def _values_float32(node: Node, g: Graph) -> bool:
    """The input and the pooled values (output 0) must be float32."""
    return all(g.tensors[n].dtype == "float32" for n in (node.inputs[0], node.outputs[0]))


class MaxPoolF32(KernelOp):
    """MaxPool and GlobalMaxPool on float32 NCW/NCHW tensors."""

    name = "maxpool_f32"
    onnx_ops = ("MaxPool", "GlobalMaxPool")
    constraints = (_values_float32, rank_is_3_or_4, _indices_unused)

    def lower(self, node: Node, g: Graph) -> None:
        """Canonical window; the unused Indices output is dropped."""
        canonical_pool_window(node, g)
        node.outputs = node.outputs[:1]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_maxpool_f32(params, x, y)."""
        return KernelCall(self.name, [("g", conv_geom(node, g))], [node.inputs[0], node.outputs[0]])


OP = MaxPoolF32()
