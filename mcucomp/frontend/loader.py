"""Turn a model path or ModelProto into a checked, static-shaped, constant-folded ModelProto."""

from __future__ import annotations

import hashlib
import os
import re
import stat

import onnx
import onnx.inliner  # a submodule: `import onnx` alone does not load it
from onnx import shape_inference, version_converter

from ..errors import McucompError, ModelError, OptionError
from .canonical import reduce_mean_to_pool
from .contrib_shapes import infer_with_contrib_rules
from .fold import fold_constants
from .static_inputs import bind_constants, require_static_operands
from .validate import validate_model

# Opsets below this are converted up; 13 is the oldest opset whose QDQ and Softmax semantics we lower.
TARGET_OPSET = 13
#: Largest dim --shape accepts.
MAX_SHAPE_DIM = 2**31 - 1


def parse_shape_option(text: str) -> tuple[str, list[int]]:
    """Parse a `--shape NAME=1x49x10` option into (name, dims)."""
    name, sep, dims = text.rpartition("=")
    if not sep or not name or not re.fullmatch(r"[0-9]+(x[0-9]+)*", dims, re.ASCII):
        raise OptionError(
            f"--shape '{text}' is not of the form NAME=D1xD2x...: give the graph input's name and its "
            "dims (ASCII digits) separated by 'x', e.g. --shape input_1=1x49x10."
        )
    values = [int(d) for d in dims.split("x")]
    if not all(1 <= d <= MAX_SHAPE_DIM for d in values):
        raise OptionError(
            f"--shape '{text}': every dim must be between 1 and {MAX_SHAPE_DIM:,} (a 32-bit target indexes "
            "tensors with 32-bit integers); give the input's real dims."
        )
    return name, values


def require_regular_file(path: str, what: str, error: type) -> None:
    """Raise `error` unless path names an existing regular file (checked without opening it: a FIFO would block)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise error(f"{what} '{path}' does not exist: check the path.") from None
    except OSError as exc:
        raise error(f"{what} '{path}' cannot be read ({exc.strerror or type(exc).__name__}): check the path.") from None
    if not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file (a FIFO, socket or device)"
        raise error(f"{what} '{path}' is {kind}: give the path of a regular file.")


def _read(model) -> tuple[onnx.ModelProto, bytes]:
    """Read a path or take a ModelProto; return it with the bytes that identify it (for the SHA-256)."""
    if isinstance(model, onnx.ModelProto):
        raw = model.SerializeToString()
        proto = onnx.ModelProto()
        proto.ParseFromString(raw)  # a copy: the later stages edit the graph, the caller's model stays as it was
        return proto, raw
    path = os.fspath(model)
    require_regular_file(path, "Model file", ModelError)
    try:
        with open(path, "rb") as f:
            raw = f.read()
        proto = onnx.load(path)
    except Exception as exc:  # onnx raises DecodeError, ValueError, OSError... for broken files
        raise ModelError(
            f"Model file '{path}' is not a readable ONNX model ({type(exc).__name__}: {exc}). "
            "Check that the file is a complete .onnx protobuf and that any external-data files sit next to it."
        ) from None
    return proto, raw


def _check(proto: onnx.ModelProto) -> None:
    """Run onnx.checker and turn its failure into a one-paragraph error."""
    try:
        onnx.checker.check_model(proto)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(
            f"The model fails onnx.checker: {first}. Re-export the model or repair it with onnx tools."
        ) from None


def _default_opset(proto: onnx.ModelProto) -> int:
    """The model's opset for the default ONNX domain."""
    for imp in proto.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return imp.version
    return TARGET_OPSET


def _convert_opset(proto: onnx.ModelProto) -> onnx.ModelProto:
    """Convert models older than TARGET_OPSET; keep the original where the converter cannot."""
    if _default_opset(proto) >= TARGET_OPSET:
        return proto
    try:
        return version_converter.convert_version(proto, TARGET_OPSET)
    except Exception:
        return proto


def _hardmax_as_2d(proto: onnx.ModelProto) -> None:
    """Before opset 13, Hardmax coerced its input to 2-D at `axis`, but onnx's version converter keeps the node as it
    is (unlike Softmax and LogSoftmax), which would change its meaning: write the old semantics out as
    Flatten(axis) → Hardmax(axis=1) → Reshape(Shape(x)) before converting."""
    if _default_opset(proto) >= TARGET_OPSET:
        return
    nodes = []
    for node in proto.graph.node:
        if node.op_type != "Hardmax" or node.domain not in ("", "ai.onnx"):
            nodes.append(node)
            continue
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
        x, y = node.input[0], node.output[0]
        flat, hard, dims = f"{y}__hardmax_flat", f"{y}__hardmax_2d", f"{y}__hardmax_shape"
        nodes += [onnx.helper.make_node("Flatten", [x], [flat], axis=axis, name=f"{node.name}_flatten"),
                  onnx.helper.make_node("Hardmax", [flat], [hard], axis=1, name=node.name),
                  onnx.helper.make_node("Shape", [x], [dims], name=f"{node.name}_shape"),
                  onnx.helper.make_node("Reshape", [hard, dims], [y], name=f"{node.name}_reshape")]
    del proto.graph.node[:]
    proto.graph.node.extend(nodes)


def _fix_input_shapes(proto: onnx.ModelProto, shapes: dict[str, list[int]]) -> None:
    """Set graph input dims from `shapes`, default a symbolic batch dim to 1, reject any other unknown dim."""
    initializer_names = {t.name for t in proto.graph.initializer}
    inputs = [i for i in proto.graph.input if i.name not in initializer_names]
    known = {i.name for i in inputs}
    for name in shapes:
        if name not in known:
            raise OptionError(
                f"--shape names '{name}', which is not a graph input; the inputs are: {', '.join(sorted(known))}."
            )
    for value in inputs:
        ttype = value.type.tensor_type
        dims = ttype.shape.dim
        if value.name in shapes:
            wanted = shapes[value.name]
            if len(dims) and len(wanted) != len(dims):
                raise OptionError(
                    f"--shape {value.name}={'x'.join(map(str, wanted))} has rank {len(wanted)}, "
                    f"but input '{value.name}' has rank {len(dims)}."
                )
            ttype.shape.ClearField("dim")
            for d in wanted:
                ttype.shape.dim.add().dim_value = d
            continue
        for axis, dim in enumerate(dims):
            if dim.HasField("dim_value"):
                continue
            if axis == 0:
                dim.Clear()
                dim.dim_value = 1
                continue
            label = dim.dim_param or "?"
            raise ModelError(
                f"Input '{value.name}' has an unresolved dim '{label}' at axis {axis}. Give its shape, "
                f"e.g. `--shape {value.name}=1x...` on the command line or shapes={{'{value.name}': [...]}} in Python."
            )


def _explicit_mvn_axes(proto: onnx.ModelProto) -> None:
    """Write MeanVarianceNormalization's default axes [0, 2, 3] explicitly: onnx's strict shape inference of the
    op's function body cannot resolve an attribute reference to an absent attribute."""
    for node in proto.graph.node:
        if node.op_type == "MeanVarianceNormalization" and not any(a.name == "axes" for a in node.attribute):
            node.attribute.append(onnx.helper.make_attribute("axes", [0, 2, 3]))


def _onnx_infer(proto: onnx.ModelProto) -> onnx.ModelProto:
    """ONNX shape inference, strict, with data propagation for shape subgraphs."""
    return shape_inference.infer_shapes(proto, check_type=True, strict_mode=True, data_prop=True)


def _infer(proto: onnx.ModelProto) -> onnx.ModelProto:
    """Run ONNX shape inference together with the com.microsoft rules (contrib_shapes.py)."""
    try:
        return infer_with_contrib_rules(proto, _onnx_infer)
    except McucompError:
        raise
    except Exception as exc:
        first = str(exc).strip().splitlines()[0]
        raise ModelError(f"Shape inference failed: {first}. Check the model and the --shape options.") from None


def load_onnx(model, shapes: dict[str, list[int]] | None = None, constants: dict | None = None
              ) -> tuple[onnx.ModelProto, str]:
    """Load, validate, check, inline, convert, bind constant inputs, fix shapes, infer, fold; return model, SHA-256."""
    proto, raw = _read(model)
    sha256 = hashlib.sha256(raw).hexdigest()
    validate_model(proto)
    _check(proto)
    if proto.functions:
        proto = onnx.inliner.inline_local_functions(proto)
    _hardmax_as_2d(proto)
    proto = _convert_opset(proto)
    bind_constants(proto, dict(constants or {}))
    require_static_operands(proto)
    _fix_input_shapes(proto, dict(shapes or {}))
    _explicit_mvn_axes(proto)
    proto = _infer(proto)
    proto = fold_constants(proto, _infer)
    if reduce_mean_to_pool(proto):
        proto = _infer(proto)
    return proto, sha256
