"""Build the graph IR from a checked, shape-inferred ONNX model."""

from __future__ import annotations

import onnx
from onnx import helper, numpy_helper

from ..errors import ModelError
from .graph import Graph, Node, Tensor


def _dtype_name(elem_type: int) -> str:
    """ONNX element type → numpy dtype name."""
    return str(helper.tensor_dtype_to_np_dtype(elem_type))


def _tensor_from_value_info(vi: onnx.ValueInfoProto) -> Tensor:
    """An activation tensor from its inferred type; every dim must be known by now."""
    ttype = vi.type.tensor_type
    dims = []
    for d in ttype.shape.dim:
        if not d.HasField("dim_value"):
            raise ModelError(
                f"Tensor '{vi.name}' still has an unknown dim '{d.dim_param or '?'}' after shape inference. "
                "Fix the graph input shapes with --shape NAME=DIMS so every tensor gets a static shape."
            )
        dims.append(d.dim_value)
    return Tensor(vi.name, tuple(dims), _dtype_name(ttype.elem_type))


def build_graph(proto: onnx.ModelProto) -> Graph:
    """Convert the ONNX graph into IR tensors and nodes (ONNX ops, not yet lowered)."""
    g = proto.graph
    tensors: dict[str, Tensor] = {}
    for init in g.initializer:
        data = numpy_helper.to_array(init)
        tensors[init.name] = Tensor(init.name, tuple(data.shape), str(data.dtype), None, data)
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        if vi.name not in tensors and vi.type.HasField("tensor_type"):
            tensors[vi.name] = _tensor_from_value_info(vi)
    nodes = []
    for k, n in enumerate(g.node):
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        name = n.name or f"{n.op_type}_{k}"
        for out in n.output:
            if out and out not in tensors:
                raise ModelError(
                    f"Node '{name}' ({n.op_type}) output '{out}' has no inferred type or shape. "
                    "The op may be unknown to ONNX shape inference; check its domain and opset."
                )
        nodes.append(Node(name, n.op_type, list(n.input), list(n.output), attrs, n.domain))
    inputs = [i.name for i in g.input if i.name not in {t.name for t in g.initializer}]
    outputs = [o.name for o in g.output]
    return Graph(tensors, nodes, inputs, outputs, g.name or "model")
