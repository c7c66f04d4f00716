"""Fail with one error that lists every node left without a kernel."""

from __future__ import annotations

from ..errors import UnsupportedError
from ..ir import Graph
from ..ops import REGISTRY


def run(g: Graph, options: dict) -> Graph:
    """Raise UnsupportedError naming each unsupported node (name, op, domain, reason)."""
    problems = []
    for node in g.nodes:
        if node.op in REGISTRY and "_unsupported" not in node.attrs:
            continue
        domain = node.domain or "ai.onnx"
        reasons = node.attrs.get("_unsupported") or ["mcucomp has no kernel for this op"]
        problems.append(f"node '{node.name}' ({domain}::{node.op}): {'; '.join(reasons)}")
    if problems:
        raise UnsupportedError(
            f"{len(problems)} node(s) cannot be compiled: " + " | ".join(problems)
            + ". Replace these ops in the exporter, or quantize/simplify the model so they match a supported pattern "
            "(see docs/SUPPORTED_OPS.md)."
        )
    return g
