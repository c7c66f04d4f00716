"""Types and shapes of the com.microsoft QOperator ops, which onnx's shape inference does not know.

onnxruntime's quantize_static(QOperator) writes QLinearAdd, QLinearConcat, QGemm... whose outputs onnx leaves
untyped, and every tensor after them too. Each op has one rule here: the standard ONNX op with the same output
shape and which of its inputs feed it (onnx's own inference of that op gives the dims), and where the output's
element type comes from. `infer_with_contrib_rules` alternates onnx's inference with these rules until every
tensor is typed; an op neither knows (a com.microsoft op without a rule, a custom domain) is reported as unsupported
(exit 2), not as a shape error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import onnx
from onnx import TensorProto, defs, helper, shape_inference

from ..errors import UnsupportedError

CONTRIB_DOMAIN = "com.microsoft"


@dataclass(frozen=True)
class ShapeRule:
    """The output of a contrib node has the shape of `standard_op` applied to the inputs at `shape_inputs` (with the
    node's attributes minus `drop_attrs`; none for Identity) and the element type of the input at `type_input`
    (float32 when that optional input is absent)."""

    standard_op: str
    shape_inputs: tuple[int, ...]
    type_input: int
    drop_attrs: tuple[str, ...] = ()
    bool_inputs: tuple[int, ...] = ()  # inputs the standard op takes as bool (Where's condition)
    opset: int = 21  # the standard op's version whose attributes the contrib op shares


_UNARY = ShapeRule("Identity", (0,), 0)
_POOL_ATTRS = ("channels_last",)

RULES: dict[str, ShapeRule] = {
    "QLinearAdd": ShapeRule("Add", (0, 3), 0),
    "QLinearMul": ShapeRule("Mul", (0, 3), 0),
    "QLinearAveragePool": ShapeRule("AveragePool", (0,), 0, _POOL_ATTRS),
    "QLinearGlobalAveragePool": ShapeRule("GlobalAveragePool", (0,), 0, _POOL_ATTRS),
    "QLinearSigmoid": _UNARY,
    "QLinearLeakyRelu": _UNARY,
    "QLinearSoftmax": _UNARY,
    "QLinearReduceMean": ShapeRule("ReduceMean", (0,), 0, opset=13),  # axes as an attribute
    "QLinearWhere": ShapeRule("Where", (0, 1, 4), 1, bool_inputs=(0,)),
    "QGemm": ShapeRule("Gemm", (0, 3), 8, ("alpha", "beta")),
}
#: QLinearConcat(Y_scale, Y_zero_point, X0, X0_scale, X0_zp, X1, ...): a Concat of inputs 2, 5, 8, ...
CONCAT_OP = "QLinearConcat"


def _rule(node: onnx.NodeProto) -> ShapeRule | None:
    """The rule for a contrib node (QLinearConcat's depends on its input count)."""
    if node.op_type == CONCAT_OP:
        return ShapeRule("Concat", tuple(range(2, len(node.input), 3)), 2)
    return RULES.get(node.op_type)


def _channels_last_perm(node: onnx.NodeProto, rank: int) -> list[int] | None:
    """NHWC → NCHW axis order for a pooling node with channels_last=1, else None."""
    if not any(a.name == "channels_last" and a.i for a in node.attribute):
        return None
    return [0, rank - 1] + list(range(1, rank - 1))


def _output_type(node: onnx.NodeProto, rule: ShapeRule, types: dict[str, onnx.TypeProto]) -> onnx.TypeProto | None:
    """The output's TypeProto by the rule, or None while an input it needs is untyped."""
    names = [node.input[i] if i < len(node.input) else "" for i in rule.shape_inputs]
    if any(not n or n not in types for n in names):
        return None
    type_name = node.input[rule.type_input] if rule.type_input < len(node.input) else ""
    if type_name and type_name not in types:
        return None
    elem = types[type_name].tensor_type.elem_type if type_name else TensorProto.FLOAT
    dims = {n: [d.dim_value for d in types[n].tensor_type.shape.dim] for n in names}
    perm = _channels_last_perm(node, len(dims[names[0]])) if rule.drop_attrs == _POOL_ATTRS else None
    if perm is not None:
        dims[names[0]] = [dims[names[0]][p] for p in perm]
    probe_inputs = [f"in{k}" for k in range(len(names))]
    probe = helper.make_node(rule.standard_op, probe_inputs, ["out"])
    if rule.standard_op != "Identity":
        probe.attribute.extend(a for a in node.attribute if a.name not in rule.drop_attrs)
    probe_types = {p: helper.make_tensor_type_proto(TensorProto.BOOL if k in rule.bool_inputs else TensorProto.FLOAT,
                                                    dims[n])
                   for p, n, k in zip(probe_inputs, names, rule.shape_inputs)}
    try:
        schema = defs.get_schema(rule.standard_op, rule.opset)
        out = shape_inference.infer_node_outputs(schema, probe, probe_types)["out"]
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UnsupportedError(
            f"node '{node.name}' ({node.domain}::{node.op_type}) has inputs or attributes mcucomp cannot give an "
            f"output shape for ({first}); check the node against onnxruntime's contrib op documentation."
        ) from None
    out_dims = [d.dim_value for d in out.tensor_type.shape.dim]
    if perm is not None:
        out_dims = [out_dims[perm.index(k)] for k in range(len(out_dims))]
    return helper.make_tensor_type_proto(elem, out_dims)


def _typed(graph: onnx.GraphProto) -> dict[str, onnx.TypeProto]:
    """Every tensor with a fully known static shape and element type."""
    types = {}
    for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
        t = vi.type.tensor_type
        if vi.type.HasField("tensor_type") and t.elem_type and t.HasField("shape") and \
                all(d.HasField("dim_value") for d in t.shape.dim):
            types[vi.name] = vi.type
    for init in graph.initializer:
        types[init.name] = helper.make_tensor_type_proto(init.data_type, list(init.dims))
    return types


def _apply_rules(proto: onnx.ModelProto) -> bool:
    """Type the outputs of every contrib node whose inputs are typed; True when any was added."""
    graph = proto.graph
    types = _typed(graph)
    added = False
    for node in graph.node:
        rule = _rule(node) if node.domain == CONTRIB_DOMAIN else None
        if rule is None or not node.output or node.output[0] in types:
            continue
        out = _output_type(node, rule, types)
        if out is not None:
            graph.value_info.append(helper.make_value_info(node.output[0], out))
            types[node.output[0]] = out
            added = True
    return added


def _reject_unknown(proto: onnx.ModelProto) -> None:
    """When a tensor stays untyped behind ops that neither onnx nor the rules here know (com.microsoft ops without a
    rule, custom domains), list those ops as unsupported."""
    types = _typed(proto.graph)
    if all(o in types for n in proto.graph.node for o in n.output if o):
        return
    unknown = [n for n in proto.graph.node if n.domain not in ("", "ai.onnx") and
               (n.domain != CONTRIB_DOMAIN or _rule(n) is None) and not defs.has(n.op_type, n.domain)]
    if unknown:
        problems = [f"node '{n.name}' ({n.domain}::{n.op_type}): mcucomp has no type/shape rule and no kernel for "
                    "this op" for n in unknown]
        raise UnsupportedError(
            f"{len(problems)} node(s) cannot be compiled: " + " | ".join(problems)
            + ". Quantize the model without these ops (e.g. exclude them with nodes_to_exclude in quantize_static) "
            "or replace them in the exporter (see docs/SUPPORTED_OPS.md)."
        )


def infer_with_contrib_rules(proto: onnx.ModelProto, onnx_infer: Callable[[onnx.ModelProto], onnx.ModelProto]
                             ) -> onnx.ModelProto:
    """onnx_infer, then the contrib rules, then onnx_infer again on what they made known, until nothing changes."""
    proto = onnx_infer(proto)
    while _apply_rules(proto):
        proto = onnx_infer(proto)
    _reject_unknown(proto)
    return proto
