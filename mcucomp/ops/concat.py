"""Concat of any number of inputs along any axis, any dtype: each input copies its chunk into every outer row."""

from __future__ import annotations

from ..ir import Graph, Node
from ._data import elem_bytes, has_dims, int32_array
from .base import KernelCall, KernelOp, numel, shape


class Concat(KernelOp):
    """Concat of tensors of one dtype."""

    name = "concat"
    onnx_ops = ("Concat",)
    constraints = (has_dims,)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_concat(params{outer, n_inputs, in_bytes[]}, {x0, x1, ...}, y)."""
        out = shape(g, node.outputs[0])
        axis = node.attrs["axis"] % len(out)
        esize = elem_bytes(g, node.outputs[0])
        arrays: dict = {}
        in_bytes = int32_array(arrays, f"{node.name}_in_bytes", (numel(shape(g, x)[axis:]) * esize for x in node.inputs))
        params = [("outer", numel(out[:axis])), ("n_inputs", len(node.inputs)), ("in_bytes", in_bytes)]
        return KernelCall(self.name, params, [tuple(node.inputs), node.outputs[0]], arrays)


OP = Concat()
