"""Structural checks of a loaded model that onnx.checker leaves to the consumer, run before anything reads the data:
names that are not UTF-8, the opset range, initializer sizes, negative declared dims, and graph outputs that are
constants."""

from __future__ import annotations

import onnx
from onnx import helper

from ..errors import ModelError

#: Oldest default-domain opset accepted (older models are converted up to TARGET_OPSET by the loader).
MIN_OPSET = 1
#: Newest default-domain opset accepted: the newest the installed onnx package defines.
MAX_OPSET = onnx.defs.onnx_opset_version()

#: TensorProto fields that hold the values when raw_data is not used.
_TYPED_FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")
#: Element types packed two to a byte in raw_data.
_FOUR_BIT_TYPES = {getattr(onnx.TensorProto, n) for n in ("INT4", "UINT4", "FLOAT4E2M1")
                   if hasattr(onnx.TensorProto, n)}


def check_opset(proto: onnx.ModelProto) -> None:
    """The default ONNX domain's opset lies in [MIN_OPSET, MAX_OPSET]."""
    for imp in proto.opset_import:
        if imp.domain in ("", "ai.onnx") and not MIN_OPSET <= imp.version <= MAX_OPSET:
            raise ModelError(
                f"The model imports ONNX opset {imp.version}; mcucomp accepts opsets {MIN_OPSET} to {MAX_OPSET} "
                "(the newest the installed onnx package defines). Re-export the model with an opset in that range."
            )


def _element_count(tensor: onnx.TensorProto) -> int:
    """Elements the initializer's dims declare; rejects negative dims."""
    count = 1
    for d in tensor.dims:
        if d < 0:
            raise ModelError(f"Initializer '{tensor.name}' has a negative dim in {list(tensor.dims)}: dims must be "
                             ">= 0. Re-export the model or repair the initializer.")
        count *= d
    return count


def _data_mismatch(tensor: onnx.TensorProto, declared: int) -> str | None:
    """How the initializer's stored data disagrees with `declared` elements, or None when it agrees (or when its
    size cannot be measured here: external data, strings, element types without a numpy type)."""
    if tensor.data_location == onnx.TensorProto.EXTERNAL or tensor.data_type == onnx.TensorProto.STRING:
        return None
    if tensor.HasField("raw_data"):
        size = len(tensor.raw_data)
        if tensor.data_type in _FOUR_BIT_TYPES:
            expected = (declared + 1) // 2  # two values per byte, an odd count pads the last byte
        else:
            try:
                expected = declared * helper.tensor_dtype_to_np_dtype(tensor.data_type).itemsize
            except (KeyError, ValueError, TypeError):
                return None  # the IR rejects this element type later, by name
        return None if size == expected else f"its raw_data holds {size} bytes instead of {expected}"
    stored = sum(len(getattr(tensor, f)) for f in _TYPED_FIELDS)
    if tensor.data_type in (onnx.TensorProto.COMPLEX64, onnx.TensorProto.COMPLEX128):
        stored //= 2
    return None if stored == declared else f"its data holds {stored} elements"


def check_initializers(proto: onnx.ModelProto) -> None:
    """Every initializer holds exactly as many elements as its dims declare."""
    for tensor in proto.graph.initializer:
        declared = _element_count(tensor)
        problem = _data_mismatch(tensor, declared)
        if problem:
            raise ModelError(
                f"Initializer '{tensor.name}' declares dims {list(tensor.dims)} ({declared} elements), but "
                f"{problem}. Re-export the model, or fix the initializer's dims or data."
            )


def check_outputs(proto: onnx.ModelProto) -> None:
    """No graph output is an initializer (a constant has no place in the arena and no node computes it)."""
    constants = {t.name for t in proto.graph.initializer}
    for out in proto.graph.output:
        if out.name in constants:
            raise ModelError(
                f"Graph output '{out.name}' is an initializer (a constant), which the generated code would never "
                "compute. Remove it from the graph outputs, or compute it with a node (e.g. Identity) if the caller "
                "needs it."
            )


def check_declared_dims(proto: onnx.ModelProto) -> None:
    """No graph input, output or value_info declares a negative dim."""
    g = proto.graph
    for value in list(g.input) + list(g.output) + list(g.value_info):
        dims = value.type.tensor_type.shape.dim if value.type.HasField("tensor_type") else []
        if any(d.HasField("dim_value") and d.dim_value < 0 for d in dims):
            shape = [d.dim_value if d.HasField("dim_value") else d.dim_param or "?" for d in dims]
            raise ModelError(f"Tensor '{value.name}' is declared with shape {shape}: dims must be >= 0. Re-export "
                             "the model, or fix the dims (or give the input's shape with --shape).")


def _text_fields(proto: onnx.ModelProto):
    """(where, value) of every name-like string field the compiler reads."""
    g = proto.graph
    yield "the graph name", g.name
    for imp in proto.opset_import:
        yield "an opset import's domain", imp.domain
    for k, node in enumerate(g.node):
        for field in (node.name, node.op_type, node.domain, *node.input, *node.output):
            yield f"node #{k}", field
        for attr in node.attribute:
            yield f"node #{k}'s attribute", attr.name
    for value in list(g.input) + list(g.output) + list(g.value_info) + list(g.initializer):
        yield "a tensor name", value.name


def check_text(proto: onnx.ModelProto) -> None:
    """Every name is valid UTF-8 (protobuf hands corrupt string fields over as bytes)."""
    for where, value in _text_fields(proto):
        if not isinstance(value, str):
            raise ModelError(f"The model is corrupt: {where} has a name or type that is not valid UTF-8 text "
                             f"({value[:40]!r}). Re-export the model.")


def validate_model(proto: onnx.ModelProto) -> None:
    """Run every structural check; raise ModelError naming the tensor or opset at fault."""
    check_text(proto)
    check_opset(proto)
    check_initializers(proto)
    check_declared_dims(proto)
    check_outputs(proto)
