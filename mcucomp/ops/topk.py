"""TopK with a constant k along one axis (largest / smallest, always sorted, ties by index); any numeric dtype."""

from __future__ import annotations

from ..ir import DTYPE_BYTES, Graph, Node
from ._walk import INT_DTYPES, dtype_code, norm_axis
from .base import KernelCall, KernelOp, numel, shape


def _k_constant(node: Node, g: Graph) -> bool:
    """K (input 1) must be a constant (bind it with --const when it is a graph input)."""
    return g.const(node.inputs[1]) is not None


def _dtype_supported(node: Node, g: Graph) -> bool:
    """The data must be float32, float64 or an integer type."""
    return g.tensors[node.inputs[0]].dtype in ("float32", "float64", *INT_DTYPES)


class TopK(KernelOp):
    """The k largest or smallest elements along an axis and their indices."""

    name = "topk"
    depends = ("strided",)
    onnx_ops = ("TopK",)
    constraints = (_k_constant, _dtype_supported)

    def lower(self, node: Node, g: Graph) -> None:
        """Resolve k and the axis; drop the K input."""
        node.attrs.update(k=int(g.const(node.inputs[1]).reshape(-1)[0]), axis=norm_axis(node, g, -1))
        node.inputs = node.inputs[:1]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_topk(params, x, values, indices)."""
        dims = shape(g, node.inputs[0])
        axis = node.attrs["axis"]
        dtype = g.tensors[node.inputs[0]].dtype
        params = [("largest", int(node.attrs.get("largest", 1))), ("dtype", dtype_code(g, node.inputs[0])),
                  ("elem_bytes", DTYPE_BYTES[dtype]), ("outer", numel(dims[:axis])), ("axis_len", dims[axis]),
                  ("inner", numel(dims[axis + 1:])), ("k", node.attrs["k"])]
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0], node.outputs[1]])


OP = TopK()
