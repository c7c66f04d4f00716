"""Text listing of the lowered graph: one line per node with shapes, dtypes, quantization and MACs."""

from __future__ import annotations

import numpy as np

from .ir import Graph, Node, Quant
from .ops import REGISTRY
from .report.build import float_layers
from .report.tables import display_text


def _number(v: float) -> str:
    """A scale or zero point, short."""
    return f"{v:.6g}"


def format_quant(q: Quant | None) -> str:
    """Scale and zero point; per-axis parameters summarized as count, scale range and zero-point range."""
    if q is None:
        return ""
    if q.per_tensor:
        return f" q(s={_number(float(q.scale.reshape(-1)[0]))}, zp={int(q.zero_point.reshape(-1)[0])})"
    scale, zp = q.scale.reshape(-1).astype(np.float64), q.zero_point.reshape(-1).astype(np.int64)
    zps = str(int(zp[0])) if zp.min() == zp.max() else f"{int(zp.min())}..{int(zp.max())}"
    return (f" q(axis={q.axis}, {scale.size} scales {_number(scale.min())}..{_number(scale.max())}, "
            f"zp={zps})")


def format_tensor(g: Graph, name: str) -> str:
    """`name:dtype[d0,d1,...]` (the stored order; ` nhwc` after a channels-last image), marked const for
    constants, with its quantization parameters."""
    if not name:
        return "-"
    t = g.tensors[name]
    const = " const" if t.is_const else ""
    layout = f" {t.layout}" if t.layout else ""
    return f"{display_text(name)}:{t.dtype}[{','.join(map(str, t.shape))}]{layout}{const}{format_quant(t.quant)}"


def format_node(step: int, node: Node, g: Graph) -> str:
    """One line: step, node name, kernel op (with its code path when it has several, and /nhwc when it runs
    channels-last: `conv2d_s8.pointwise/nhwc`), inputs -> outputs, MACs (or 'alias' for views); ops are lowered."""
    op = REGISTRY[node.op]
    aliased = op.aliases_input(node, g)
    cost = "alias" if aliased else f"macs={op.macs(node, g):,}"
    path = "default" if aliased else op.cost_terms(node, g)[0]
    kernel = node.op if path == "default" else f"{node.op}.{path}"
    ins = ", ".join(format_tensor(g, i) for i in node.inputs)
    outs = ", ".join(format_tensor(g, o) for o in node.outputs)
    kernel += "/nhwc" if node.attrs.get("layout") == "nhwc" else ""
    return f"{step:4d}  {display_text(node.name)}  {kernel}  {ins} -> {outs}  {cost}"


def format_graph(g: Graph, order: list[Node]) -> list[str]:
    """The graph's inputs and outputs, then one line per node in execution order, then the MAC total; in an int8
    model, each layer that computes in float and why."""
    lines = [f"inputs:  {', '.join(format_tensor(g, n) for n in g.inputs)}",
             f"outputs: {', '.join(format_tensor(g, n) for n in g.outputs)}"]
    lines += [format_node(step, node, g) for step, node in enumerate(order)]
    total = sum(REGISTRY[n.op].macs(n, g) for n in order)
    lines.append(f"{len(order)} nodes, {total:,} MACs")
    lines += [f"float layer: {display_text(row['layer'])} ({row['op']}): {row['why']}" for row in float_layers(g, order)]
    return lines
