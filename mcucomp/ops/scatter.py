"""ScatterElements (and opset-10 Scatter, converted to it) and ScatterND, with reduction none / add / mul / max /
min, any data dtype; indices are runtime tensors or constants."""

from __future__ import annotations

from ..ir import Graph, Node
from ._data import elem_bytes, has_dims, index_code, index_dtype_supported
from .base import DTYPE_CODES, MAX_RANK, KernelCall, KernelOp, contiguous_strides, numel, shape
from .gather_elements import _walk as elements_walk

#: reduction attribute → MCU_SCATTER_*.
REDUCTIONS = {"none": 0, "add": 1, "mul": 2, "max": 3, "min": 4}


def _reduction(node: Node) -> str:
    """The reduction attribute as text."""
    r = node.attrs.get("reduction", "none")
    return r.decode() if isinstance(r, bytes) else r


def _supported(node: Node, g: Graph) -> bool:
    """reduction must be none, add, mul, max or min, and the indices an integer (or float) tensor."""
    return _reduction(node) in REDUCTIONS and index_dtype_supported(g, node.inputs[1])


def _rank_fits(node: Node, g: Graph) -> bool:
    """ScatterElements must need at most 6 dims once dims read contiguously are merged; ScatterND's index tuples at
    most 6 values, each with a matching updates shape (indices.shape[:-1] + data.shape[k:])."""
    data, idx, upd = (shape(g, n) for n in node.inputs[:3])
    if not data:
        return True  # has_dims reports it
    if node.op == "ScatterElements":
        return upd == idx and len(elements_walk(node, g)[0]) <= MAX_RANK
    return len(idx) >= 1 and idx[-1] <= min(len(data), MAX_RANK) and upd == idx[:-1] + data[idx[-1]:]


class Scatter(KernelOp):
    """Copy of the data with updates written (or combined) at indexed positions."""

    name = "scatter"
    depends = ("index",)
    onnx_ops = ("ScatterElements", "ScatterND")
    constraints = (has_dims, _supported, _rank_fits)

    def lower(self, node: Node, g: Graph) -> None:
        """Record which ONNX op this was."""
        node.attrs["elements"] = node.op == "ScatterElements"
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_scatter(params, data, indices, updates, y)."""
        data, idx = shape(g, node.inputs[0]), shape(g, node.inputs[1])
        if node.attrs["elements"]:
            axis = node.attrs.get("axis", 0) % len(data)
            dims, strides = elements_walk(node, g)
            view = [("count", numel(idx)), ("unit_elems", 1), ("rank", len(dims)), ("axis_len", data[axis]),
                    ("axis_stride", contiguous_strides(data)[axis]), ("k", 0)]
        else:
            k = idx[-1]
            dims, strides = list(data[:k]), contiguous_strides(data)[:k]
            view = [("count", numel(idx[:-1])), ("unit_elems", numel(data[k:])), ("rank", 0), ("axis_len", 0),
                    ("axis_stride", 0), ("k", k)]
        fill = [0] * (MAX_RANK - len(dims))
        params = [("mode", 0 if node.attrs["elements"] else 1), ("reduction", REDUCTIONS[_reduction(node)]),
                  ("dtype", DTYPE_CODES[g.tensors[node.inputs[0]].dtype]),
                  ("elem_bytes", elem_bytes(g, node.inputs[0])), ("idx_dtype", index_code(g, node.inputs[1])),
                  ("total", numel(data)), *view, ("dims", list(dims) + fill), ("strides", list(strides) + fill)]
        return KernelCall(self.name, params, list(node.inputs[:3]) + [node.outputs[0]])


OP = Scatter()
