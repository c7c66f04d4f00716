"""Concat along any axis, any dtype: each input copies its contiguous chunk into every outer row of the output."""

from __future__ import annotations

from ..ir import DTYPE_BYTES, Graph, Node
from .base import KernelCall, KernelOp, numel, shape

MAX_INPUTS = 8  # MCU_CONCAT_MAX_INPUTS in runtime_c/kernels/concat.h


def _few_inputs(node: Node, g: Graph) -> bool:
    """Concat takes at most 8 inputs; split wider Concats into a tree of Concats in the model."""
    return len(node.inputs) <= MAX_INPUTS


class Concat(KernelOp):
    """Concat of tensors of one dtype."""

    name = "concat"
    onnx_ops = ("Concat",)
    constraints = (_few_inputs,)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_concat(params{outer, out_bytes, n_inputs, in_bytes[8]}, x0..x7 (unused NULL), y)."""
        out = g.tensors[node.outputs[0]]
        axis = node.attrs["axis"] % len(out.shape)
        esize = DTYPE_BYTES[out.dtype]
        in_bytes = [numel(shape(g, x)[axis:]) * esize for x in node.inputs]
        params = [("outer", numel(out.shape[:axis])), ("out_bytes", numel(out.shape[axis:]) * esize),
                  ("n_inputs", len(node.inputs)), ("in_bytes", in_bytes + [0] * (MAX_INPUTS - len(in_bytes)))]
        args = list(node.inputs) + [None] * (MAX_INPUTS - len(node.inputs)) + [node.outputs[0]]
        return KernelCall(self.name, params, args)


OP = Concat()
