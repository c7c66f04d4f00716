"""Operands that fix output shapes or loop bounds, and binding graph inputs that feed them to constant values.

An MCU arena is planned at compile time, so every tensor shape must be static. Some ONNX operands decide shapes
(Reshape's `shape`, Slice's `starts`...); when such an operand is a graph input, its value must be given at compile
time (`--const NAME=FILE.npy`, `constants={...}` in Python), just as a dynamic dim must be given with `--shape`.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import numpy_helper

from ..errors import ModelError, OptionError

#: ONNX op → indices of the inputs whose values decide output shapes (or are attributes in older opsets).
STATIC_OPERANDS: dict[str, tuple[int, ...]] = {
    "Reshape": (1,), "Expand": (1,), "Tile": (1,), "Slice": (1, 2, 3, 4), "Pad": (1, 2, 3), "TopK": (1,),
    "OneHot": (1,), "Range": (0, 1, 2), "ConstantOfShape": (0,), "Split": (1,), "Squeeze": (1,),
    "Unsqueeze": (1,), "Resize": (1, 2, 3), "Upsample": (1,), "CumSum": (1,), "CumProd": (1,), "Trilu": (1,),
    "ReduceSum": (1,), "ReduceMean": (1,), "ReduceMax": (1,), "ReduceMin": (1,), "ReduceProd": (1,),
    "ReduceL1": (1,), "ReduceL2": (1,), "ReduceLogSum": (1,), "ReduceLogSumExp": (1,), "ReduceSumSquare": (1,),
    "CenterCropPad": (1,), "Col2Im": (1, 2), "DFT": (1, 2), "STFT": (1, 2), "BlackmanWindow": (0,),
    "HannWindow": (0,), "HammingWindow": (0,), "Compress": (1,),
    "Dropout": (1, 2),
    "MaxUnpool": (2,),
}


def static_graph_inputs(proto: onnx.ModelProto) -> dict[str, tuple[str, str, int]]:
    """Graph inputs that feed a shape-deciding operand directly: name → (node name, op, operand index)."""
    initializers = {t.name for t in proto.graph.initializer}
    inputs = {i.name for i in proto.graph.input if i.name not in initializers}
    found: dict[str, tuple[str, str, int]] = {}
    for node in proto.graph.node:
        if node.domain not in ("", "ai.onnx"):
            continue
        for index in STATIC_OPERANDS.get(node.op_type, ()):
            if index < len(node.input) and node.input[index] in inputs:
                found.setdefault(node.input[index], (node.name, node.op_type, index))
    return found


def bind_constants(proto: onnx.ModelProto, constants: dict[str, np.ndarray]) -> None:
    """Turn the named graph inputs into initializers holding the given values (dtype and rank are checked)."""
    by_name = {i.name: i for i in proto.graph.input}
    for name, value in constants.items():
        if name not in by_name:
            raise OptionError(
                f"--const names '{name}', which is not a graph input; the inputs are: {', '.join(sorted(by_name))}."
            )
        ttype = by_name[name].type.tensor_type
        want = onnx.helper.tensor_dtype_to_np_dtype(ttype.elem_type)
        array = np.asarray(value)
        if array.dtype != want:
            raise OptionError(f"--const {name}: the value is {array.dtype}, but input '{name}' is {want}.")
        if ttype.HasField("shape") and len(ttype.shape.dim) != array.ndim:
            raise OptionError(
                f"--const {name}: the value has rank {array.ndim}, but input '{name}' has rank {len(ttype.shape.dim)}."
            )
        proto.graph.input.remove(by_name[name])
        proto.graph.initializer.append(numpy_helper.from_array(array, name))


def require_static_operands(proto: onnx.ModelProto) -> None:
    """Reject graph inputs left in a shape-deciding operand: their values must be known at compile time."""
    unbound = static_graph_inputs(proto)
    if unbound:
        name, (node, op, index) = next(iter(unbound.items()))
        raise ModelError(
            f"Input '{name}' feeds operand {index} of {op} node '{node}', which decides a tensor shape and must be "
            f"known at compile time. Bind its value with `--const {name}=VALUE.npy` on the command line or "
            f"constants={{'{name}': array}} in Python, or make it an initializer in the model."
        )
