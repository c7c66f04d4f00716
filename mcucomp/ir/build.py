"""Build the graph IR from a checked, shape-inferred ONNX model."""

from __future__ import annotations

import onnx
from onnx import helper, numpy_helper

from ..errors import ModelError, UnsupportedError
from .graph import DTYPE_BYTES, Graph, Node, Tensor


def _dtype_name(elem_type: int, tensor: str) -> str:
    """ONNX element type → numpy dtype name; types without a C representation here are rejected."""
    name = onnx.TensorProto.DataType.Name(elem_type).lower()
    if elem_type != onnx.TensorProto.STRING and elem_type != onnx.TensorProto.UNDEFINED:
        name = str(helper.tensor_dtype_to_np_dtype(elem_type))
    if name not in DTYPE_BYTES:
        raise UnsupportedError(
            f"Tensor '{tensor}' has element type {onnx.TensorProto.DataType.Name(elem_type)}, which mcucomp does not "
            f"compile (supported: {', '.join(DTYPE_BYTES)}). Convert the model to float32 or quantize it to int8."
        )
    return name


def _tensor_from_value_info(vi: onnx.ValueInfoProto, producer: onnx.NodeProto | None) -> Tensor:
    """An activation tensor from its inferred type; every dim must be known by now."""
    ttype = vi.type.tensor_type
    dims = []
    for d in ttype.shape.dim:
        if not d.HasField("dim_value"):
            if producer is not None:
                raise UnsupportedError(
                    f"Tensor '{vi.name}' from node '{producer.name}' ({producer.op_type}) has a dim "
                    f"'{d.dim_param or '?'}' that shape inference cannot fix: it depends on the input values, and a "
                    "static arena needs every shape at compile time. Bind value-deciding inputs with --const, or "
                    "replace the op with one whose output shape is fixed."
                )
            raise ModelError(
                f"Tensor '{vi.name}' still has an unknown dim '{d.dim_param or '?'}' after shape inference. "
                "Fix the graph input shapes with --shape NAME=DIMS so every tensor gets a static shape."
            )
        dims.append(d.dim_value)
    if 0 in dims:
        raise UnsupportedError(
            f"Tensor '{vi.name}' has shape {dims} with no elements; mcucomp does not compile empty tensors. "
            "Remove the branch that produces it or give the inputs non-empty shapes."
        )
    return Tensor(vi.name, tuple(dims), _dtype_name(ttype.elem_type, vi.name))


def _unique(name: str, taken: set[str]) -> str:
    """name, or name_1, name_2, ... when a node already has it (ONNX does not require unique node names, but the
    layers, scratch buffers and messages are keyed by them); the result is added to taken."""
    unique, k = name, 0
    while unique in taken:
        k += 1
        unique = f"{name}_{k}"
    taken.add(unique)
    return unique


def build_graph(proto: onnx.ModelProto) -> Graph:
    """Convert the ONNX graph into IR tensors and nodes (ONNX ops, not yet lowered)."""
    g = proto.graph
    tensors: dict[str, Tensor] = {}
    for init in g.initializer:
        data = numpy_helper.to_array(init)
        tensors[init.name] = Tensor(init.name, tuple(data.shape), _dtype_name(init.data_type, init.name), None, data)
    producers = {out: n for n in g.node for out in n.output}
    used = {name for n in g.node for name in list(n.input) + list(n.output)}
    used |= {v.name for v in list(g.input) + list(g.output)}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        # value_info may still describe tensors that constant folding removed; only live names become tensors
        if vi.name in used and vi.name not in tensors and vi.type.HasField("tensor_type"):
            tensors[vi.name] = _tensor_from_value_info(vi, producers.get(vi.name))
    nodes = []
    taken: set[str] = set()
    for k, n in enumerate(g.node):
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        name = _unique(n.name or f"{n.op_type}_{k}", taken)
        for out in n.output:
            if out and out not in tensors:
                raise ModelError(
                    f"Node '{name}' ({n.op_type}) output '{out}' has no inferred type or shape. "
                    "The op may be unknown to ONNX shape inference; check its domain and opset."
                )
        nodes.append(Node(name, n.op_type, list(n.input), list(n.output), attrs, n.domain))
    inputs = [i.name for i in g.input if i.name not in {t.name for t in g.initializer}]
    outputs = [o.name for o in g.output]
    if not outputs:
        raise ModelError("The graph has no outputs, so there is nothing to compute. Declare its outputs in the model.")
    return Graph(tensors, nodes, inputs, outputs, g.name or "model")
