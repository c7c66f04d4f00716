"""Refuse quantization parameters that define no usable affine mapping: scales that are 0, negative, NaN, Inf or
subnormal, zero points outside the range of the quantized type (or of another type), per-axis sizes that do not
match the axis. Every positive, finite, normal float32 scale is accepted: the lowerings derive their requantization
parameters so that none overflows or underflows (mcucomp.quant.combined_scale, mcucomp.fixedpoint).

Runs before the QDQ and QOperator lowerings read them; names the node, the tensor and the rule (exit 1)."""

from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..ir import Graph, Node

#: Integer ranges of the quantized types.
_RANGES = {dtype: (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
           for dtype in ("int8", "uint8", "int16", "uint16", "int32", "uint32")}

#: (scale input, zero-point input, quantized tensor as ("in"|"out", index)) triples of the ops that take them; scale
#: None for ops that take a zero point only.
_QLINEAR_BINARY = ((1, 2, ("in", 0)), (4, 5, ("in", 3)), (6, 7, ("out", 0)))
_QLINEAR_UNARY = ((1, 2, ("in", 0)), (3, 4, ("out", 0)))
QUANT_PARAMS = {
    "QuantizeLinear": ((1, 2, ("out", 0)),),
    "DequantizeLinear": ((1, 2, ("in", 0)),),
    "QLinearConv": _QLINEAR_BINARY,
    "QLinearMatMul": _QLINEAR_BINARY,
    "QLinearAdd": _QLINEAR_BINARY,
    "QLinearMul": _QLINEAR_BINARY,
    "QLinearAveragePool": _QLINEAR_UNARY,
    "QLinearGlobalAveragePool": _QLINEAR_UNARY,
    "QLinearSigmoid": _QLINEAR_UNARY,
    "QLinearLeakyRelu": _QLINEAR_UNARY,
    "QLinearSoftmax": _QLINEAR_UNARY,
    "ConvInteger": ((None, 2, ("in", 0)), (None, 3, ("in", 1))),
    "MatMulInteger": ((None, 2, ("in", 0)), (None, 3, ("in", 1))),
}
#: Domains whose ops these rules describe.
DOMAINS = ("", "ai.onnx", "com.microsoft")


def _param_triples(node: Node) -> tuple:
    """The node's (scale, zero point, quantized tensor) input positions; QLinearConcat's depend on its arity."""
    if node.op == "QLinearConcat":  # (Y_scale, Y_zp, then (X, X_scale, X_zp) per input)
        return ((0, 1, ("out", 0)),) + tuple((k + 1, k + 2, ("in", k)) for k in range(2, len(node.inputs) - 2, 3))
    return QUANT_PARAMS.get(node.op, ())


def _fail(node: Node, text: str) -> ModelError:
    """The error for a node with bad quantization parameters."""
    return ModelError(f"Node '{node.name}' ({node.op}): {text}. Re-quantize the model, or fix the tensor.")


def _input(node: Node, index: int | None) -> str:
    """The name of input `index`, or '' when absent."""
    return node.inputs[index] if index is not None and index < len(node.inputs) else ""


#: The accepted scales: the positive normal float32 values (a subnormal scale has lost precision in the model
#: file already, and its reciprocal overflows float32).
SCALE_RANGE = (float(np.finfo(np.float32).tiny), float(np.finfo(np.float32).max))


def _check_scale(node: Node, name: str, scale: np.ndarray) -> None:
    """Every scale element is a positive, finite, normal float32 value (within SCALE_RANGE)."""
    values = np.asarray(scale, np.float64).reshape(-1)
    low, high = SCALE_RANGE
    bad = values[~(np.isfinite(values) & (values >= low) & (values <= high))]
    if bad.size:
        raise _fail(node, f"scale '{name}' holds {float(bad[0])}; a scale must be positive and finite, a normal "
                          f"float32 between {low:.9g} and {high:.9g} (0, negative, NaN, infinite and subnormal "
                          f"scales define no usable mapping)")


def _check_zero_point(node: Node, name: str, zp: np.ndarray, zp_dtype: str, quantized: str, q_dtype: str | None
                      ) -> None:
    """The zero point has the quantized tensor's type, so its values lie in that type's range."""
    if q_dtype is None or q_dtype == zp_dtype:
        return
    values = np.asarray(zp).reshape(-1)
    held = f" (holds {values[0]})" if values.size else ""
    bounds = _RANGES.get(q_dtype)
    allowed = f", so it must lie in [{bounds[0]}, {bounds[1]}]" if bounds else ""
    raise _fail(node, f"zero point '{name}' is {zp_dtype}{held}, but the quantized tensor '{quantized}' is "
                      f"{q_dtype}: a zero point has the quantized type{allowed}")


def _check_axis_size(node: Node, g: Graph, name: str, values: np.ndarray, quantized: str) -> None:
    """A per-axis (1-D) scale or zero point has one entry per slice along the node's axis of the quantized tensor
    (blocked quantization, with block_size, has scales of the tensor's rank and other rules)."""
    t = g.tensors.get(quantized)
    size = int(np.size(values))
    if (size <= 1 or np.ndim(values) != 1 or node.attrs.get("block_size") or t is None
            or node.op not in ("QuantizeLinear", "DequantizeLinear")):
        return
    axis = node.attrs.get("axis", 1)
    rank = len(t.shape)
    if not -rank <= axis < rank:
        raise _fail(node, f"attribute axis={axis} is out of range for the rank-{rank} tensor '{quantized}'")
    if t.shape[axis] != size:
        raise _fail(node, f"'{name}' has {size} entries, but tensor '{quantized}' has {t.shape[axis]} along axis "
                          f"{axis}")


#: Which dim of which quantized input may carry one scale/zero point per slice, by op: {input index: dim}.
#: (QLinearConv/ConvInteger weights per output channel, QLinearMatMul/MatMulInteger b per column, MatMulInteger a
#: per row); every other scale and zero point of the QLinear ops is a single value.
_PER_SLICE = {"QLinearConv": {3: 0}, "ConvInteger": {1: 0}, "QLinearMatMul": {3: -1}, "MatMulInteger": {0: -2, 1: -1}}


def _check_operand_size(node: Node, g: Graph, name: str, values: np.ndarray, side: str, index: int) -> None:
    """A QLinear/Integer op's scale or zero point has one value, or one per slice where _PER_SLICE allows it."""
    if node.op in ("QuantizeLinear", "DequantizeLinear"):
        return  # _check_axis_size: their `axis` says which dim
    size = int(np.size(values))
    allowed = {1}
    dim = _PER_SLICE.get(node.op, {}).get(index) if side == "in" else None
    operand = g.tensors.get(node.inputs[index]) if dim is not None else None
    if operand is not None and -len(operand.shape) <= dim < len(operand.shape):
        allowed.add(operand.shape[dim])
    if size not in allowed:
        raise _fail(node, f"'{name}' has {size} values; it needs {' or '.join(map(str, sorted(allowed)))}")


def _check_node(node: Node, g: Graph) -> None:
    """Every constant scale and zero point of one node."""
    for scale_at, zp_at, (side, index) in _param_triples(node):
        names = node.outputs if side == "out" else node.inputs
        quantized = names[index] if index < len(names) else ""
        q_tensor = g.tensors.get(quantized) if quantized else None
        scale_name, zp_name = _input(node, scale_at), _input(node, zp_at)
        scale = g.const(scale_name)
        if scale is not None:
            _check_scale(node, scale_name, scale)
            _check_axis_size(node, g, scale_name, scale, quantized)
            _check_operand_size(node, g, scale_name, scale, side, index)
        zp = g.const(zp_name)
        if zp is not None:
            q_dtype = q_tensor.dtype if q_tensor else None
            _check_zero_point(node, zp_name, zp, g.tensors[zp_name].dtype, quantized, q_dtype)
            _check_axis_size(node, g, zp_name, zp, quantized)
            _check_operand_size(node, g, zp_name, zp, side, index)


def run(g: Graph, options: dict) -> Graph:
    """Raise ModelError at the first node whose constant quantization parameters are invalid."""
    for node in g.nodes:
        if node.domain in DOMAINS:
            _check_node(node, g)
    return g
