"""ArgMax and ArgMin along one axis (keepdims, select_last_index) on float and integer tensors; int64 indices."""

from __future__ import annotations

from ..ir import Graph, Node
from ._walk import INT_DTYPES, dtype_code, norm_axis
from .base import KernelCall, KernelOp, numel, shape


def _dtype_supported(node: Node, g: Graph) -> bool:
    """The data must be float32, float64 or an integer type."""
    return g.tensors[node.inputs[0]].dtype in ("float32", "float64", *INT_DTYPES)


def _axis_not_empty(node: Node, g: Graph) -> bool:
    """The reduced axis must not be empty (an index of nothing is undefined)."""
    dims = shape(g, node.inputs[0])
    return not dims or dims[norm_axis(node, g, 0)] > 0


class ArgMinMax(KernelOp):
    """Index of the largest or smallest element along an axis."""

    name = "argminmax"
    depends = ("strided",)
    onnx_ops = ("ArgMax", "ArgMin")
    constraints = (_dtype_supported, _axis_not_empty)

    def lower(self, node: Node, g: Graph) -> None:
        """Record which op this was and the non-negative axis."""
        node.attrs.update(is_max=int(node.op == "ArgMax"), axis=norm_axis(node, g, 0))
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_argminmax(params, x, y)."""
        dims = shape(g, node.inputs[0])
        axis = node.attrs["axis"]
        params = [("is_max", node.attrs["is_max"]), ("select_last", int(node.attrs.get("select_last_index", 0))),
                  ("dtype", dtype_code(g, node.inputs[0])), ("outer", numel(dims[:axis])),
                  ("axis_len", dims[axis] if dims else 1), ("inner", numel(dims[axis + 1:]))]
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0]])


OP = ArgMinMax()
