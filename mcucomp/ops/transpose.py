"""Transpose with any perm, any dtype: the output is written in order while the input is walked by strides."""

from __future__ import annotations

from ..ir import DTYPE_BYTES, Graph, Node
from .base import MAX_RANK, KernelCall, KernelOp, bcast_struct, collapse_dims, contiguous_strides, shape


def _walk(node: Node, g: Graph) -> tuple[list[int], list[int]]:
    """Collapsed output dims and the input element stride of each."""
    in_dims = shape(g, node.inputs[0])
    perm = node.attrs.get("perm") or list(range(len(in_dims)))[::-1]
    in_strides = contiguous_strides(in_dims)
    dims, (strides,) = collapse_dims([in_dims[p] for p in perm], [in_strides[p] for p in perm])
    return dims, strides


def _rank_fits(node: Node, g: Graph) -> bool:
    """The permutation must need at most 6 dims once dims that stay adjacent are merged."""
    return len(_walk(node, g)[0]) <= MAX_RANK


class Transpose(KernelOp):
    """Transpose of a tensor of any dtype."""

    name = "transpose"
    onnx_ops = ("Transpose",)
    constraints = (_rank_fits,)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_transpose(params{count, elem_bytes, walk}, x, y)."""
        out = g.tensors[node.outputs[0]]
        dims, strides = _walk(node, g)
        return KernelCall(self.name, [("count", out.size), ("elem_bytes", DTYPE_BYTES[out.dtype]),
                                      ("walk", bcast_struct(dims, strides, [0] * len(dims)))],
                          [node.inputs[0], node.outputs[0]])


OP = Transpose()
