"""Ops whose output is known at compile time, evaluated by the compiler and copied out of flash.

Constant folding (frontend/fold.py) already turns these into initializers, except where the output is a graph
output: then this op computes the value (Shape and Size from static shapes, the rest with the ONNX reference
evaluator on constant inputs) and the node becomes a copy of that constant into the output.
"""

from __future__ import annotations

import numpy as np
from onnx import helper
from onnx.reference import ReferenceEvaluator

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, numel, shape
from .copy import copy_call

#: Ops whose value needs only the static shape of input 0.
SHAPE_OPS = ("Shape", "Size")


def _value(node: Node, g: Graph) -> np.ndarray:
    """The output value, in the output's dtype and shape."""
    out = g.tensors[node.outputs[0]]
    if node.op == "Shape":
        dims = shape(g, node.inputs[0])
        value = np.array(dims[slice(node.attrs.get("start", 0), node.attrs.get("end", len(dims)))])
    elif node.op == "Size":
        value = np.array(numel(shape(g, node.inputs[0])))
    else:
        attrs = {k: v for k, v in node.attrs.items() if not k.startswith("_")}
        proto = helper.make_node(node.op, node.inputs, node.outputs[:1], **attrs)
        value = ReferenceEvaluator(proto).run(None, {i: g.const(i) for i in node.inputs if i})[0]
    return np.asarray(value).astype(out.dtype).reshape(out.shape)


def _inputs_constant(node: Node, g: Graph) -> bool:
    """The output must be computable at compile time: the inputs of Range and NonZero must be constants (their
    output shapes depend on the values, and an MCU arena needs static shapes; bind graph inputs with --const)."""
    return node.op in SHAPE_OPS or all(g.const(i) is not None for i in node.inputs if i)


class Constant(KernelOp):
    """A compile-time value copied into its (graph output) tensor."""

    name = "constant"
    onnx_ops = ("Constant", "Shape", "Size", "Range", "NonZero")
    constraints = (_inputs_constant,)

    def lower(self, node: Node, g: Graph) -> None:
        """Replace the inputs by the computed value."""
        value = _value(node, g)
        node.inputs = [g.add_const(f"{node.outputs[0]}_value", value)]
        node.attrs = {}
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_copy(params{nbytes}, value, y)."""
        return copy_call(node, g)


OP = Constant()
