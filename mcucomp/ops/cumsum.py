"""CumSum and CumProd along a constant axis (exclusive, reverse) for float32, float64, int32, uint32, int64 and
uint64."""

from __future__ import annotations

from ..ir import Graph, Node
from ._data import axis_view, const_ints, has_dims
from .base import DTYPE_CODES, KernelCall, KernelOp, shape

DTYPES = ("float32", "float64", "int32", "uint32", "int64", "uint64")


def _axis_constant(node: Node, g: Graph) -> bool:
    """CumSum's and CumProd's axis must be a constant (bind a graph input with --const)."""
    return g.const(node.inputs[1]) is not None


def _dtype(node: Node, g: Graph) -> bool:
    """CumSum and CumProd support float32, float64, int32, uint32, int64 and uint64 data."""
    return g.tensors[node.inputs[0]].dtype in DTYPES


class CumSum(KernelOp):
    """Running sum (or product) along one axis, accumulated in order in the data type."""

    name = "cumsum"
    onnx_ops = ("CumSum", "CumProd")
    constraints = (has_dims, _axis_constant, _dtype)

    def lower(self, node: Node, g: Graph) -> None:
        """Store the axis and whether this is CumProd, and keep only the data input."""
        node.attrs["product"] = int(node.op == "CumProd")
        node.attrs["axis"] = const_ints(g, node.inputs[1])[0] % len(shape(g, node.inputs[0]))
        node.inputs = node.inputs[:1]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_cumsum(params{outer, len, inner, exclusive, reverse, dtype, product}, x, y)."""
        outer, length, inner = axis_view(shape(g, node.inputs[0]), node.attrs["axis"])
        params = [("outer", outer), ("len", length), ("inner", inner),
                  ("exclusive", int(node.attrs.get("exclusive", 0))), ("reverse", int(node.attrs.get("reverse", 0))),
                  ("dtype", DTYPE_CODES[g.tensors[node.inputs[0]].dtype]), ("product", node.attrs["product"])]
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0]])


OP = CumSum()
