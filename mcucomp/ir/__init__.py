"""Graph IR: tensors with shape, dtype, quantization and data; nodes with op, attributes, inputs, outputs."""

from .graph import Graph, Node, Quant, Tensor, DTYPE_BYTES
from .build import build_graph

__all__ = ["Graph", "Node", "Quant", "Tensor", "DTYPE_BYTES", "build_graph"]
