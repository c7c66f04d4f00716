"""Graph passes, one per module, run in PIPELINE order over the IR."""

from __future__ import annotations

from ..ir import Graph
from . import (
    check_attributes,
    check_quant_params,
    check_supported,
    eliminate_dead_code,
    fold_batchnorm,
    fuse_activation,
    layout,
    lower_onnx_ops,
    lower_qdq,
    lower_qoperator,
    quantized_io,
    remove_identity,
    split_variadic,
)

PIPELINE = (
    check_attributes.run,
    check_quant_params.run,
    split_variadic.run,
    remove_identity.run,
    fold_batchnorm.run,
    quantized_io.run,
    lower_qoperator.run,
    lower_qdq.run,
    fuse_activation.run,
    lower_onnx_ops.run,
    eliminate_dead_code.run,
    layout.run,
    check_supported.run,
)


def run_passes(g: Graph, options: dict) -> Graph:
    """Run every pass in order; each takes and returns the graph."""
    for p in PIPELINE:
        g = p(g, options)
    return g
