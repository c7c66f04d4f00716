"""Shared by the reduction-style kernels: mcu_walk initializers (runtime_c/kernels/strided.h) and axis handling."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import DTYPE_CODES, MAX_RANK, collapse_dims, contiguous_strides, shape

#: Operands one mcu_walk advances together (MCU_WALK_OPS).
WALK_OPS = 3

#: Integer element types the dtype-generic kernels handle through mcu_get_int / mcu_set_int.
INT_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


def walk_dims(dims, *stride_lists) -> tuple[list[int], list[list[int]]]:
    """Collapsed dims and per-operand strides of a walk (size-1 dims dropped, contiguous neighbours merged)."""
    return collapse_dims(list(dims), *[list(s) for s in stride_lists])


def walk_struct(dims, *stride_lists) -> list[tuple[str, object]]:
    """The mcu_walk initializer over dims with up to WALK_OPS operands' element strides."""
    dims, strides = walk_dims(dims, *stride_lists)
    pad = [0] * (MAX_RANK - len(dims))
    rows = [list(s) + pad for s in strides] + [[0] * MAX_RANK] * (WALK_OPS - len(strides))
    return [("rank", len(dims)), ("dims", list(dims) + pad), ("strides", rows)]


def walks_fit(*walks) -> bool:
    """True when every (dims, strides...) walk collapses to at most MAX_RANK dims."""
    return all(len(walk_dims(*w)[0]) <= MAX_RANK for w in walks)


def split_axes(dims, axes) -> tuple[tuple[list[int], list[int]], tuple[list[int], list[int]]]:
    """(kept dims, their strides) and (reduced dims, their strides) of a contiguous tensor, reduced axes in order."""
    strides = contiguous_strides(dims)
    kept = [a for a in range(len(dims)) if a not in axes]
    red = sorted(axes)
    return ([dims[a] for a in kept], [strides[a] for a in kept]), ([dims[a] for a in red], [strides[a] for a in red])


def dtype_code(g: Graph, name: str) -> int:
    """The MCU_DT_* code of a tensor's element type."""
    return DTYPE_CODES[g.tensors[name].dtype]


def norm_axis(node: Node, g: Graph, default: int, attr: str = "axis") -> int:
    """The node's axis attribute made non-negative against input 0's rank."""
    rank = len(shape(g, node.inputs[0]))
    return node.attrs.get(attr, default) % max(rank, 1)
