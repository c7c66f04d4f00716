"""Constant folding on the ONNX graph, including the Shape→Gather→Concat→Reshape chains PyTorch emits."""

from __future__ import annotations

import warnings

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.reference import ReferenceEvaluator

from ..errors import ModelError

# DequantizeLinear stays: the QDQ lowering needs the integer weights and their scales.
NEVER_FOLD = {"DequantizeLinear"}
#: Largest constant a fold may create: the kernels count elements in int32 (see mcucomp.memory.MAX_ELEMENTS).
MAX_FOLDED_ELEMENTS = 2**31 - 1


def _static_shape(value_info: dict, name: str) -> list[int] | None:
    """The fully known shape of a tensor, or None."""
    vi = value_info.get(name)
    if vi is None or not vi.type.tensor_type.HasField("shape"):
        return None
    dims = vi.type.tensor_type.shape.dim
    if not all(d.HasField("dim_value") for d in dims):
        return None
    return [d.dim_value for d in dims]


def _fold_shape_node(node: onnx.NodeProto, shape: list[int]) -> list[np.ndarray]:
    """Evaluate Shape or Size from a known input shape."""
    if node.op_type == "Size":
        return [np.array(int(np.prod(shape)), dtype=np.int64)]
    attrs = {a.name: a.i for a in node.attribute}
    start, end = attrs.get("start", 0), attrs.get("end", len(shape))
    return [np.array(shape[slice(start, end)], dtype=np.int64)]


def _fold_castlike(node: onnx.NodeProto, consts: dict, value_info: dict) -> list[np.ndarray] | None:
    """CastLike of a constant to a typed tensor needs only the target's dtype (PyTorch's exporter casts zero biases
    like the graph input this way), not its values."""
    vi = value_info.get(node.input[1])
    if node.input[0] not in consts or vi is None or not vi.type.tensor_type.elem_type:
        return None
    return [consts[node.input[0]].astype(onnx.helper.tensor_dtype_to_np_dtype(vi.type.tensor_type.elem_type))]


def _evaluate(node: onnx.NodeProto, opsets: dict, feeds: dict, infos: dict) -> list:
    """Run a node whose inputs are all constant with onnx's reference evaluator; a failure (bad attributes or
    inputs that onnx's shape inference let through) or an output too large for any flash is the model's error."""
    for out in node.output:
        shape = _static_shape(infos, out) if out else None
        if shape is not None and int(np.prod(shape, dtype=object)) > MAX_FOLDED_ELEMENTS:
            raise ModelError(f"Node '{node.name}' ({node.op_type}) has only constant inputs, but its output '{out}' "
                             f"of shape {shape} is too large to become constant data for a 32-bit target. Check "
                             "the node's inputs.")
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):  # inf/NaN results are what onnxruntime gives
            warnings.simplefilter("ignore")
            return ReferenceEvaluator(node, opsets=opsets).run(None, feeds)
    except Exception as exc:  # MemoryError included
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"Node '{node.name}' ({node.op_type}) has only constant inputs, and evaluating it at compile "
                         f"time failed ({first[:300]}). Check the node's attributes and inputs.") from None


def _value_infos(proto: onnx.ModelProto) -> dict:
    """Map every typed tensor name to its ValueInfoProto."""
    g = proto.graph
    return {vi.name: vi for vi in list(g.input) + list(g.value_info) + list(g.output)}


def _fold_once(proto: onnx.ModelProto) -> bool:
    """Fold every node whose inputs are constant (or whose output is a static shape); True if any."""
    g = proto.graph
    opsets = {imp.domain: imp.version for imp in proto.opset_import}
    consts = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    graph_outputs = {o.name for o in g.output}
    infos = _value_infos(proto)
    kept, new_inits, changed = [], [], False
    for node in g.node:
        values = None
        if node.domain not in ("", "ai.onnx") or node.op_type in NEVER_FOLD or any(
            o in graph_outputs for o in node.output
        ):
            kept.append(node)
            continue
        if node.op_type in ("Shape", "Size"):
            shape = _static_shape(infos, node.input[0])
            if shape is not None:
                values = _fold_shape_node(node, shape)
        elif node.op_type == "CastLike" and node.input[1] not in consts:
            values = _fold_castlike(node, consts, infos)
        elif all((not i) or i in consts for i in node.input) and not any(a.g.node for a in node.attribute):
            values = _evaluate(node, opsets, {i: consts[i] for i in node.input if i}, infos)
        if values is None:
            kept.append(node)
            continue
        changed = True
        for name, value in zip([o for o in node.output], values):
            if not name:
                continue
            arr = np.asarray(value)
            consts[name] = arr
            new_inits.append(numpy_helper.from_array(arr, name))
    if changed:
        del g.node[:]
        g.node.extend(kept)
        g.initializer.extend(new_inits)
        used = {i for n in g.node for i in n.input} | graph_outputs
        live = [t for t in g.initializer if t.name in used]
        del g.initializer[:]
        g.initializer.extend(live)
    return changed


def fold_constants(proto: onnx.ModelProto, infer) -> onnx.ModelProto:
    """Fold constants to a fixed point, re-running shape inference after each round."""
    while _fold_once(proto):
        proto = infer(proto)
    return proto
