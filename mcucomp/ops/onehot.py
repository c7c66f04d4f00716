"""OneHot along any axis: indices at run time (any numeric dtype), constant depth, [off, on] values of any dtype."""

from __future__ import annotations

from ..ir import Graph, Node
from ._data import elem_bytes, index_code, index_dtype_supported
from .base import KernelCall, KernelOp, numel, shape


def _depth_constant(node: Node, g: Graph) -> bool:
    """OneHot's depth must be a constant (it decides the output shape; bind a graph input with --const)."""
    return g.const(node.inputs[1]) is not None


def _index_dtype(node: Node, g: Graph) -> bool:
    """OneHot indices must be of an integer or float32/float64 type."""
    return index_dtype_supported(g, node.inputs[0])


class OneHot(KernelOp):
    """One-hot encoding: a new axis of length depth holds on at the index and off elsewhere."""

    name = "onehot"
    depends = ("index",)
    onnx_ops = ("OneHot",)
    constraints = (_depth_constant, _index_dtype)

    def lower(self, node: Node, g: Graph) -> None:
        """Keep indices and values; the depth is the output dim at the axis."""
        node.inputs = [node.inputs[0], node.inputs[2]]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_onehot(params{outer, depth, inner, elem_bytes, idx_dtype}, idx, values, y)."""
        idx, out = shape(g, node.inputs[0]), shape(g, node.outputs[0])
        axis = node.attrs.get("axis", -1) % len(out)
        params = [("outer", numel(idx[:axis])), ("depth", out[axis]), ("inner", numel(idx[axis:])),
                  ("elem_bytes", elem_bytes(g, node.outputs[0])), ("idx_dtype", index_code(g, node.inputs[0]))]
        return KernelCall(self.name, params, [node.inputs[0], node.inputs[1], node.outputs[0]])


OP = OneHot()
