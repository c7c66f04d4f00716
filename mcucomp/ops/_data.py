"""Shared helpers of the data-movement ops: strided walks, constant operands, scalar bytes, index dtypes."""

from __future__ import annotations

import numpy as np

from ..ir import DTYPE_BYTES, Graph, Node
from ._cost import params_dict, walk_terms
from ._layout import all_images, is_nhwc
from .base import DTYPE_CODES, ArrayRef, KernelCall, KernelOp, collapse_dims, contiguous_strides, numel, shape

#: Most loop levels of a strided walk (MCU_TRANSPOSE_MAX_DIMS in runtime_c/kernels/transpose.h); a rank-6 Tile
#: needs two levels per dim.
MAX_WALK = 12

#: Index tensor dtypes the runtime's mcu_index_load reads (runtime_c/kernels/index.h).
INDEX_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64")


def elem_bytes(g: Graph, name: str) -> int:
    """Bytes per element of a tensor."""
    return DTYPE_BYTES[g.tensors[name].dtype]


def operand(node: Node, index: int) -> str:
    """The name of an optional input, '' when absent."""
    return node.inputs[index] if len(node.inputs) > index else ""


def const_ints(g: Graph, name: str) -> list[int] | None:
    """The values of a constant integer (or integral float) operand as a flat list, None when not constant."""
    data = g.const(name)
    return None if data is None else [int(v) for v in np.asarray(data).reshape(-1)]


def operands_constant(node: Node, g: Graph, indices) -> bool:
    """True when each present operand at these input indices is a constant."""
    return all(g.const(operand(node, i)) is not None for i in indices if operand(node, i))


def walk(out_dims, in_strides, offset: int = 0) -> tuple[list[int], list[int], int]:
    """The collapsed (dims, input element strides, start offset) of a walk that writes out_dims in order."""
    dims, (strides,) = collapse_dims(list(out_dims), list(in_strides))
    if not dims:
        dims, strides = [1], [1]
    return dims, strides, offset


def permuted_walk(view_dims, perm) -> tuple[list[int], list[int], int]:
    """The walk of a transpose of a contiguous tensor viewed with view_dims, by perm."""
    in_strides = contiguous_strides(view_dims)
    return walk([view_dims[p] for p in perm], [in_strides[p] for p in perm])


def walk_fits(w: tuple[list[int], list[int], int]) -> bool:
    """True when the walk needs at most MAX_WALK loop levels."""
    return len(w[0]) <= MAX_WALK


def walk_params(node: Node, g: Graph, w: tuple[list[int], list[int], int]) -> list[tuple[str, object]]:
    """The mcu_transpose_params initializer for a walk from input 0 into output 0."""
    dims, strides, offset = w
    fill = [0] * (MAX_WALK - len(dims))
    return [("count", g.tensors[node.outputs[0]].size), ("elem_bytes", elem_bytes(g, node.outputs[0])),
            ("offset", offset), ("rank", len(dims)), ("dims", list(dims) + fill), ("strides", list(strides) + fill)]


class WalkCopy(KernelOp):
    """Base of the ops that copy input 0 into output 0 along one strided walk (mcu_transpose); a subclass sets
    walk_of(node, g) -> (dims, strides, offset), read from the ONNX node before lowering."""

    cost_kernel = "transpose"
    cost_paths = ()

    def lower(self, node: Node, g: Graph) -> None:
        """Store the walk on the node and keep only the data input (the others are constants folded into it)."""
        node.attrs["walk"] = self.walk_of(node, g)
        node.inputs = node.inputs[:1]
        node.op = self.name

    def stored_walk(self, node: Node, g: Graph) -> tuple[list[int], list[int], int]:
        """The walk over the tensors as stored (ONNX order unless a subclass runs channels-last)."""
        return node.attrs["walk"]

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_transpose(params{count, elem_bytes, offset, rank, dims, strides}, x, y)."""
        return KernelCall("transpose", walk_params(node, g, self.stored_walk(node, g)),
                          [node.inputs[0], node.outputs[0]])

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """mcu_transpose's path and loop counts for the walk (_cost.walk_terms)."""
        return walk_terms(params_dict(self.call(node, g)))


class AxisWiseWalkCopy(WalkCopy):
    """A WalkCopy whose walk follows from the input and output shapes axis by axis (Expand, Tile), so permuting the
    axes permutes the walk: channels-last it is the same walk rebuilt on the stored shapes."""

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout when the input is a runtime image of the output's rank (constants keep ONNX order)."""
        return not g.tensors[node.inputs[0]].is_const and all_images(node, g)

    def stored_walk(self, node: Node, g: Graph) -> tuple[list[int], list[int], int]:
        """The lowered walk, or channels-last the walk of the stored shapes."""
        return self.walk_of(node, g) if is_nhwc(node) else node.attrs["walk"]


def scalar_bytes(value, dtype: str) -> list[int]:
    """The bytes of one value in an IR dtype, padded to 8 (a params `uint8_t value[8]` field)."""
    raw = np.array([value]).astype(np.dtype(dtype)).view(np.uint8)
    return [int(b) for b in raw] + [0] * (8 - raw.size)


def index_code(g: Graph, name: str) -> int:
    """The MCU_DT_* code of an index tensor."""
    return DTYPE_CODES[g.tensors[name].dtype]


def index_dtype_supported(g: Graph, name: str) -> bool:
    """True when mcu_index_load reads this tensor's dtype."""
    return g.tensors[name].dtype in INDEX_DTYPES


def axis_view(dims, axis: int) -> tuple[int, int, int]:
    """(outer, axis length, inner) of a shape around one axis."""
    return numel(dims[:axis]), int(dims[axis]), numel(dims[axis + 1:])


def int32_array(call_arrays: dict, key: str, values) -> ArrayRef:
    """Add an int32 constant array to a KernelCall's arrays and return the params reference to it."""
    call_arrays[key] = np.asarray(list(values), dtype=np.int32).reshape(-1)
    return ArrayRef(key)


def has_dims(node: Node, g: Graph) -> bool:
    """The data input must have at least one dim (and a shape that shape inference could determine)."""
    return len(shape(g, node.inputs[0])) >= 1
