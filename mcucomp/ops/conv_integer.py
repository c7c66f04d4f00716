"""ConvInteger on its own (1-D, 2-D, 3-D): int8/uint8 data and weights, zero points, int32 output.

ConvInteger followed by a dequantize/requantize chain becomes an int8 conv in lower_qoperator; this kernel runs the
rest exactly (integer results, tolerance zero)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._window import canonical_nd, depth_fields, rank_1_to_3, window_geom
from .base import DTYPE_CODES, KernelCall, KernelOp, numel, shape


def _input(node: Node, k: int) -> str | None:
    """Name of optional input k, or None."""
    return node.inputs[k] if len(node.inputs) > k and node.inputs[k] else None


def _eight_bit(node: Node, g: Graph) -> bool:
    """ConvInteger's inputs must be int8 or uint8 (zero points of their tensor's dtype) and its output int32."""
    names = [n for n in node.inputs if n]
    return (all(g.tensors[n].dtype in ("int8", "uint8") for n in names)
            and g.tensors[node.outputs[0]].dtype == "int32")


def _zero_point_sizes(node: Node, g: Graph) -> bool:
    """ConvInteger's x zero point must be a scalar and its w zero point a scalar or one per output channel."""
    x_zp, w_zp = _input(node, 2), _input(node, 3)
    c_out = shape(g, node.inputs[1])[0]
    return (not x_zp or g.tensors[x_zp].size == 1) and (not w_zp or g.tensors[w_zp].size in (1, c_out))


class ConvInteger(KernelOp):
    """ConvInteger: integer convolution with zero points."""

    name = "conv_integer"
    onnx_ops = ("ConvInteger",)
    constraints = (_eight_bit, rank_1_to_3, _zero_point_sizes)

    def lower(self, node: Node, g: Graph) -> None:
        """Canonical window attributes; the reason lower_qoperator recorded for not fusing the node no longer
        applies once this kernel runs it."""
        canonical_nd(node, g, list(shape(g, node.inputs[1])[2:]))
        node.attrs.pop("_unsupported", None)
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_conv_integer(params, x, w, x_zp|NULL, w_zp|NULL, y)."""
        w_zp = _input(node, 3)
        params = [("g", window_geom(node, g, group=node.attrs.get("group", 1))), *depth_fields(node, g),
                  ("x_dtype", DTYPE_CODES[g.tensors[node.inputs[0]].dtype]),
                  ("w_dtype", DTYPE_CODES[g.tensors[node.inputs[1]].dtype]),
                  ("w_zp_count", g.tensors[w_zp].size if w_zp else 0)]
        return KernelCall(self.name, params, [node.inputs[0], node.inputs[1], _input(node, 2), w_zp, node.outputs[0]])

    def macs(self, node: Node, g: Graph) -> int:
        """Output elements times the kernel volume of one group."""
        return g.tensors[node.outputs[0]].size * numel(shape(g, node.inputs[1])[1:])


OP = ConvInteger()
