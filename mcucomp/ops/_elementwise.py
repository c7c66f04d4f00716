"""Shared pieces of the element-wise kernels: dtype groups, broadcast walks and their constraints."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import MAX_RANK, bcast_struct, broadcast_strides, collapse_dims, shape

#: Integer dtypes the integer kernels serve (bool is stored as uint8 0/1 and handled where an op defines it).
INT_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


def dtype(g: Graph, name: str) -> str:
    """IR dtype of a tensor by name."""
    return g.tensors[name].dtype


def walk(node: Node, g: Graph, names: list[str]) -> tuple[list[int], list[list[int]]]:
    """Collapsed output dims and each named input's broadcast strides into output 0 (at least one dim)."""
    out = list(shape(g, node.outputs[0]))
    dims, strides = collapse_dims(out, *[broadcast_strides(shape(g, n), out) for n in names])
    if not dims:
        return [1], [[0] for _ in names]
    return dims, strides


def broadcast_fits(node: Node, g: Graph) -> bool:
    """The broadcast pattern of the inputs must merge into at most 6 dims."""
    return len(walk(node, g, [n for n in node.inputs if n])[0]) <= MAX_RANK


def bcast_pair(node: Node, g: Graph, a: str, b: str) -> list[tuple[str, object]]:
    """mcu_bcast initializer walking inputs a and b into output 0 (rank >= 1, so the loop always advances)."""
    dims, (a_st, b_st) = walk(node, g, [a, b])
    return bcast_struct(dims, a_st, b_st)
