"""GatherElements along any axis, any data dtype; indices are runtime tensors or constants (int32/int64)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._data import elem_bytes, has_dims, index_code
from .base import MAX_RANK, KernelCall, KernelOp, collapse_dims, contiguous_strides, shape


def _walk(node: Node, g: Graph) -> tuple[list[int], list[int]]:
    """The indices' dims and the data strides of each (0 at the axis), merged where both run contiguously."""
    data, idx = shape(g, node.inputs[0]), shape(g, node.inputs[1])
    axis = node.attrs.get("axis", 0) % len(data)
    strides = [0 if d == axis else s for d, s in enumerate(contiguous_strides(data))]
    dims, (strides,) = collapse_dims(idx, strides)
    return (dims, strides) if dims else ([1], [0])


def _rank_fits(node: Node, g: Graph) -> bool:
    """GatherElements must need at most 6 dims once dims read contiguously are merged."""
    return not has_dims(node, g) or len(_walk(node, g)[0]) <= MAX_RANK


class GatherElements(KernelOp):
    """Element-wise gather: the output has the indices' shape."""

    name = "gather_elements"
    depends = ("index",)
    onnx_ops = ("GatherElements",)
    constraints = (has_dims, _rank_fits)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_gather_elements(params{rank, count, elem_bytes, idx_dtype, axis_len, axis_stride, dims, strides},
        x, idx, y)."""
        data = shape(g, node.inputs[0])
        axis = node.attrs.get("axis", 0) % len(data)
        dims, strides = _walk(node, g)
        fill = [0] * (MAX_RANK - len(dims))
        params = [("rank", len(dims)), ("count", g.tensors[node.inputs[1]].size),
                  ("elem_bytes", elem_bytes(g, node.inputs[0])), ("idx_dtype", index_code(g, node.inputs[1])),
                  ("axis_len", data[axis]), ("axis_stride", contiguous_strides(data)[axis]),
                  ("dims", dims + fill), ("strides", strides + fill)]
        return KernelCall(self.name, params, [node.inputs[0], node.inputs[1], node.outputs[0]])


OP = GatherElements()
