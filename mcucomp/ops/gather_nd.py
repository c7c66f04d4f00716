"""GatherND with batch_dims, any data dtype; indices are runtime tensors or constants (int64)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._data import elem_bytes, has_dims, index_code, int32_array
from .base import KernelCall, KernelOp, contiguous_strides, numel, shape


class GatherND(KernelOp):
    """Gather of slices addressed by index tuples (the indices' last dim)."""

    name = "gather_nd"
    depends = ("index",)
    onnx_ops = ("GatherND",)
    constraints = (has_dims,)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_gather_nd(params{batches, tuples, k, batch_elems, slice_elems, elem_bytes, idx_dtype, dims[],
        strides[]}, x, idx, y)."""
        data, idx = shape(g, node.inputs[0]), shape(g, node.inputs[1])
        b = node.attrs.get("batch_dims", 0)
        k = idx[-1]
        indexed = list(data[b:b + k])
        strides = contiguous_strides(data[b:])[:k]
        arrays: dict = {}
        params = [("batches", numel(data[:b])), ("tuples", numel(idx[b:-1])), ("k", k),
                  ("batch_elems", numel(data[b:])), ("slice_elems", numel(data[b + k:])),
                  ("elem_bytes", elem_bytes(g, node.inputs[0])), ("idx_dtype", index_code(g, node.inputs[1])),
                  ("dims", int32_array(arrays, f"{node.name}_dims", indexed)),
                  ("strides", int32_array(arrays, f"{node.name}_strides", strides))]
        return KernelCall(self.name, params, [node.inputs[0], node.inputs[1], node.outputs[0]], arrays)


OP = GatherND()
