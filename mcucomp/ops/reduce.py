"""ONNX Reduce* over any axes, keepdims, noop_with_empty_axes; float32, float64, integer and bool tensors.
Also GlobalMaxPool of any rank or dtype the float32 maxpool kernel does not take."""

from __future__ import annotations

from ..ir import Graph, Node
from ._walk import INT_DTYPES, dtype_code, split_axes, walk_struct, walks_fit
from .base import KernelCall, KernelOp, shape

#: ONNX op → MCU_REDUCE_* code.
OP_CODES = {"ReduceSum": 0, "ReduceMean": 1, "ReduceMax": 2, "ReduceMin": 3, "ReduceProd": 4, "ReduceL1": 5,
            "ReduceL2": 6, "ReduceSumSquare": 7, "ReduceLogSum": 8, "ReduceLogSumExp": 9}
FLOAT_ONLY = ("ReduceL2", "ReduceLogSum", "ReduceLogSumExp")


def _axes(node: Node, g: Graph) -> list[int] | None:
    """The reduced axes (non-negative, sorted; [] = none), or None when the axes input is not a constant."""
    rank = len(shape(g, node.inputs[0]))
    if node.op == "GlobalMaxPool":
        return list(range(2, rank))
    if len(node.inputs) > 1 and node.inputs[1]:
        values = g.const(node.inputs[1])
        if values is None:
            return None
        axes = [int(a) for a in values.reshape(-1)]
    else:
        axes = list(node.attrs.get("axes", []))
    if not axes:
        return [] if node.attrs.get("noop_with_empty_axes", 0) else list(range(rank))
    return sorted({a % rank for a in axes})


def _axes_constant(node: Node, g: Graph) -> bool:
    """The axes input must be a constant (bind it with --const when it is a graph input)."""
    return _axes(node, g) is not None


def _dtype_supported(node: Node, g: Graph) -> bool:
    """The data must be float32, float64 or an integer type (bool only for ReduceMax/ReduceMin); ReduceL2,
    ReduceLogSum and ReduceLogSumExp need float32 or float64."""
    dtype = g.tensors[node.inputs[0]].dtype
    if dtype in ("float32", "float64"):
        return True
    if node.op in FLOAT_ONLY:
        return False
    return dtype in INT_DTYPES or dtype == "bool" and node.op in ("ReduceMax", "ReduceMin")


def _walks(node: Node, g: Graph):
    """(kept dims, strides) and (reduced dims, strides) of the input."""
    return split_axes(list(shape(g, node.inputs[0])), node.attrs["reduce_axes"] if "reduce_axes" in node.attrs
                      else _axes(node, g))


def _rank_fits(node: Node, g: Graph) -> bool:
    """The kept and the reduced dims must each merge into at most 6 dims."""
    return _axes(node, g) is None or walks_fit(*_walks(node, g))


class Reduce(KernelOp):
    """Reductions over a set of axes: the output walks the kept dims, each value walks the reduced ones."""

    name = "reduce"
    depends = ("strided",)
    onnx_ops = (*OP_CODES, "GlobalMaxPool")
    constraints = (_axes_constant, _dtype_supported, _rank_fits)

    def lower(self, node: Node, g: Graph) -> None:
        """Resolve the axes (attribute, constant input, defaults) and the op code; drop the axes input."""
        node.attrs["reduce_axes"] = _axes(node, g)
        node.attrs["reduce_op"] = OP_CODES["ReduceMax" if node.op == "GlobalMaxPool" else node.op]
        node.inputs = node.inputs[:1]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_reduce(params{op, dtype, outer, inner}, x, y)."""
        kept, red = _walks(node, g)
        params = [("op", node.attrs["reduce_op"]), ("dtype", dtype_code(g, node.inputs[0])),
                  ("outer", walk_struct(*kept)), ("inner", walk_struct(*red))]
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0]])


OP = Reduce()
