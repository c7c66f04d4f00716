"""Pattern helpers shared by the QOperator and QDQ lowering passes."""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Node, Quant
from ..quant import QRANGE


def single_consumer(g: Graph, name: str) -> Node | None:
    """The only node reading `name` (and `name` is not a graph output), else None."""
    readers = g.consumers(name)
    if len(readers) != 1 or name in g.outputs:
        return None
    return readers[0]


def const_quant(g: Graph, scale_name: str, zp_name: str | None, axis: int | None = None) -> Quant | None:
    """A Quant from constant scale / zero-point inputs, or None when either is not constant."""
    scale = g.const(scale_name)
    if scale is None:
        return None
    zp = g.const(zp_name) if zp_name else np.zeros(np.shape(scale), np.int32)
    if zp is None:
        return None
    return Quant(np.asarray(scale, np.float32), np.asarray(zp).astype(np.int32),
                 axis if np.size(scale) > 1 else None)


def dq_source(g: Graph, name: str) -> tuple[str, Quant, Node] | None:
    """If `name` is made by a DequantizeLinear with constant params: (quantized tensor, its Quant, the DQ node)."""
    node = g.producer(name)
    if node is None or node.op != "DequantizeLinear" or node.domain:
        return None
    q = const_quant(g, node.inputs[1], node.inputs[2] if len(node.inputs) > 2 else None, node.attrs.get("axis", 1))
    if q is None:
        return None
    return node.inputs[0], q, node


def q_sink(g: Graph, name: str) -> tuple[str, Quant, Node] | None:
    """If `name`'s only reader is a QuantizeLinear with constant per-tensor params: (output, Quant, Q node)."""
    node = single_consumer(g, name)
    if node is None or node.op != "QuantizeLinear" or node.domain:
        return None
    q = const_quant(g, node.inputs[1], node.inputs[2] if len(node.inputs) > 2 else None)
    if q is None or not q.per_tensor:
        return None
    return node.outputs[0], q, node


def out_range(g: Graph, name: str) -> tuple[int, int]:
    """The representable range of a quantized tensor's dtype."""
    return QRANGE[g.tensors[name].dtype]


def set_quant(g: Graph, name: str, q: Quant) -> None:
    """Record quantization parameters on a tensor (for show, report and later passes)."""
    g.tensors[name].quant = q


def zp_array(g: Graph, name: str | None, size: int) -> np.ndarray | None:
    """Per-channel int32 zero points from a constant input; None when absent or all zero."""
    if not name:
        return None
    zp = np.asarray(g.const(name)).astype(np.int32).reshape(-1)
    if not zp.any():
        return None
    return np.broadcast_to(zp, (size,)).astype(np.int32).copy()
