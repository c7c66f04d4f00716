"""Lower the remaining ONNX ops to kernel ops whose constraints they meet; record why others fail."""

from __future__ import annotations

from ..ir import Graph
from ..ops import ONNX_OPS, REGISTRY, failed_constraints


def run(g: Graph, options: dict) -> Graph:
    """Map each ONNX node to the first candidate kernel whose constraints hold; otherwise keep every reason."""
    for node in g.nodes:
        if node.op in REGISTRY and not node.domain:
            continue
        candidates = ONNX_OPS.get(node.op, []) if node.domain in ("", "ai.onnx") else []
        failures: list[str] = []
        for op in candidates:
            broken = failed_constraints(op, node, g)
            if not broken:
                node.attrs.pop("_unsupported", None)  # an earlier pass's rejection no longer applies
                op.lower(node, g)
                break
            failures += [f for f in broken if f not in failures]
        else:
            if candidates:
                node.attrs["_unsupported"] = failures
    return g
