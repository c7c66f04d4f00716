"""ConstantOfShape (value attribute, constant shape) and EyeLike (dtype, k), any dtype: the output is filled."""

from __future__ import annotations

import numpy as np
from onnx import numpy_helper

from ..ir import Graph, Node
from ._data import elem_bytes, scalar_bytes
from .base import KernelCall, KernelOp, numel, shape


def _shape_constant(node: Node, g: Graph) -> bool:
    """ConstantOfShape's shape must be a constant (bind a graph input with --const)."""
    return node.op != "ConstantOfShape" or g.const(node.inputs[0]) is not None


def _eyelike_2d(node: Node, g: Graph) -> bool:
    """EyeLike's input must be 2-D."""
    return node.op != "EyeLike" or len(shape(g, node.inputs[0])) == 2


class Fill(KernelOp):
    """A tensor of one value, optionally with another value on a diagonal of a 2-D output."""

    name = "fill"
    onnx_ops = ("ConstantOfShape", "EyeLike")
    constraints = (_shape_constant, _eyelike_2d)

    def lower(self, node: Node, g: Graph) -> None:
        """Store the fill value and the diagonal (EyeLike's ones at offset k); the output needs no input."""
        dtype = g.tensors[node.outputs[0]].dtype
        if node.op == "EyeLike":
            rows, cols = shape(g, node.outputs[0])
            k = min(max(int(node.attrs.get("k", 0)), -rows), cols)  # a k beyond the matrix puts no 1 anywhere
            node.attrs.update(value=scalar_bytes(0, dtype), diag=scalar_bytes(1, dtype), k=k)
        else:
            value = node.attrs.get("value")
            data = numpy_helper.to_array(value).reshape(-1)[0] if value is not None else np.float32(0)
            node.attrs.update(value=scalar_bytes(data, dtype), diag=None, k=0)
        node.inputs = []
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_fill(params{rows, cols, k, has_diag, elem_bytes, value, diag}, y)."""
        dims = shape(g, node.outputs[0])
        has_diag = node.attrs["diag"] is not None
        rows, cols = (dims[0], dims[1]) if has_diag else (1, numel(dims))
        params = [("rows", rows), ("cols", cols), ("k", node.attrs["k"]), ("has_diag", int(has_diag)),
                  ("elem_bytes", elem_bytes(g, node.outputs[0])), ("value", node.attrs["value"]),
                  ("diag", node.attrs["diag"] or [0] * 8)]
        return KernelCall(self.name, params, [node.outputs[0]])


OP = Fill()
