"""Lower the remaining ONNX ops to kernel ops whose constraints they meet; record why others fail."""

from __future__ import annotations

from ..ir import Graph
from ..ops import ONNX_OPS, REGISTRY, failed_constraints


def run(g: Graph, options: dict) -> Graph:
    """Map each ONNX node to its kernel; failures are kept on the node for check_supported."""
    for node in g.nodes:
        if node.op in REGISTRY and not node.domain:
            continue
        op = ONNX_OPS.get(node.op) if node.domain in ("", "ai.onnx") else None
        if op is None:
            continue
        failures = failed_constraints(op, node, g)
        if failures:
            node.attrs["_unsupported"] = failures
            continue
        op.lower(node, g)
    return g
