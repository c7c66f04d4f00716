"""`io_dtype=int8`: drop a QDQ model's leading QuantizeLinear and trailing DequantizeLinear, so the firmware feeds and
reads the quantized tensors directly (TFLite's inference_input_type=int8). The graph I/O keep their names and take
the 8-bit type and the quantization of the dropped node (the header's _SCALE and _ZERO_POINT macros)."""

from __future__ import annotations

from ..ir import Graph, Node
from .qutil import const_quant, single_consumer


def _quant_of(g: Graph, node: Node):
    """The constant per-tensor Quant of a QuantizeLinear/DequantizeLinear, else None."""
    q = const_quant(g, node.inputs[1], node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None)
    return q if q is not None and q.per_tensor else None


def _drop_input_quantize(g: Graph, name: str) -> None:
    """float input → QuantizeLinear (its only reader) → codes: the input becomes the codes."""
    q = single_consumer(g, name)
    if q is None or q.op != "QuantizeLinear" or q.domain or q.outputs[0] in g.outputs:
        return
    quant = _quant_of(g, q)
    if quant is None:
        return
    codes = q.outputs[0]
    g.nodes.remove(q)
    t = g.tensors[name]
    t.dtype, t.quant = g.tensors[codes].dtype, quant
    g.rename_uses(codes, name)
    del g.tensors[codes]


def _drop_output_dequantize(g: Graph, name: str) -> None:
    """codes → DequantizeLinear → float output: the output becomes the codes."""
    dq = g.producer(name)
    if dq is None or dq.op != "DequantizeLinear" or dq.domain:
        return
    codes = dq.inputs[0]
    quant = _quant_of(g, dq)
    if quant is None or codes in g.inputs or codes in g.outputs or g.tensors[codes].is_const \
            or len(g.consumers(codes)) != 1:
        return
    g.nodes.remove(dq)
    t = g.tensors[name]
    t.dtype, t.quant = g.tensors[codes].dtype, quant
    g.producer(codes).outputs = [name if o == codes else o for o in g.producer(codes).outputs]
    del g.tensors[codes]


def run(g: Graph, options: dict) -> Graph:
    """With io_dtype int8, make every quantized graph input and output 8-bit; otherwise leave the graph alone."""
    if options.get("io_dtype", "float") != "int8":
        return g
    for name in list(g.inputs):
        _drop_input_quantize(g, name)
    for name in list(g.outputs):
        _drop_output_dequantize(g, name)
    g.remove_unused()
    return g
