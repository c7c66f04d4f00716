"""Gather along any axis, any data dtype; indices are runtime tensors or constants, of any integer dtype."""

from __future__ import annotations

from ..ir import Graph, Node
from ._cost import copy_terms, params_dict
from ._data import axis_view, elem_bytes, has_dims, index_code
from .base import KernelCall, KernelOp, shape


def gather_call(node: Node, g: Graph, view: tuple[int, int, int]) -> KernelCall:
    """mcu_gather(params{outer, axis_len, inner_bytes, n_idx, idx_dtype}, x, idx, y) for a data view
    (outer, axis length, inner elements) and indices input 1."""
    outer, axis_len, inner = view
    params = [("outer", outer), ("axis_len", axis_len), ("inner_bytes", inner * elem_bytes(g, node.inputs[0])),
              ("n_idx", g.tensors[node.inputs[1]].size), ("idx_dtype", index_code(g, node.inputs[1]))]
    return KernelCall("gather", params, [node.inputs[0], node.inputs[1], node.outputs[0]])


def gather_cost(call: KernelCall) -> tuple[str, dict[str, int]]:
    """mcu_gather's path and loop counts: per outer slab and index an index load and wrap and one memcpy of the
    inner bytes."""
    p = params_dict(call)
    return "default", copy_terms([p["inner_bytes"]], p["outer"] * p["n_idx"])


def _index_dtype(node: Node, g: Graph) -> bool:
    """Gather indices must be int32 or int64."""
    return g.tensors[node.inputs[1]].dtype in ("int32", "int64")


class Gather(KernelOp):
    """Gather of slabs along one axis (negative indices count from the end)."""

    name = "gather"
    depends = ("index",)
    onnx_ops = ("Gather",)
    constraints = (has_dims, _index_dtype)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_gather on the data viewed around the axis attribute."""
        dims = shape(g, node.inputs[0])
        return gather_call(node, g, axis_view(dims, node.attrs.get("axis", 0) % len(dims)))

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """gather_cost of the call."""
        return gather_cost(self.call(node, g))


OP = Gather()
