"""Float32 CausalConvWithState: a stateful causal depthwise 1-D conv with an optional fused SiLU; every operand may
be a runtime tensor."""

from __future__ import annotations

from ..ir import Graph, Node
from ._window import text_attr
from .base import KernelCall, KernelOp, all_float32, shape


def _input(node: Node, k: int) -> str | None:
    """Name of optional input k, or None."""
    return node.inputs[k] if len(node.inputs) > k and node.inputs[k] else None


def _activation(node: Node) -> str:
    """The activation attribute, lower case."""
    return text_attr(node.attrs.get("activation"), "none").lower()


def _known_activation(node: Node, g: Graph) -> bool:
    """CausalConvWithState's activation must be none, silu or swish."""
    return _activation(node) in ("none", "silu", "swish")


class CausalConvF32(KernelOp):
    """CausalConvWithState on float32 [batch, channels, length] tensors."""

    name = "causal_conv_f32"
    uses_float_mac = True
    onnx_ops = ("CausalConvWithState",)
    constraints = (all_float32, _known_activation)

    def lower(self, node: Node, g: Graph) -> None:
        """An unused present_state output (output 1) is dropped."""
        state = node.outputs[1] if len(node.outputs) > 1 else ""
        if not (state and (state in g.outputs or g.consumers(state))):
            node.outputs = node.outputs[:1]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_causal_conv_f32(params, x, w, bias|NULL, past|NULL, y, present|NULL)."""
        batch, channels, length = shape(g, node.inputs[0])
        params = [("batch", batch), ("channels", channels), ("length", length),
                  ("k", shape(g, node.inputs[1])[2]), ("silu", int(_activation(node) != "none"))]
        present = node.outputs[1] if len(node.outputs) > 1 else None
        return KernelCall(self.name, params, [node.inputs[0], node.inputs[1], _input(node, 2), _input(node, 3),
                                              node.outputs[0], present])

    def macs(self, node: Node, g: Graph) -> int:
        """k multiply-adds per output element."""
        return g.tensors[node.outputs[0]].size * shape(g, node.inputs[1])[2]


OP = CausalConvF32()
