"""ONNX frontend: read, check, inline, convert, fix shapes, infer and fold constants."""

from .loader import load_onnx, parse_shape_option
from .static_inputs import static_graph_inputs

__all__ = ["load_onnx", "parse_shape_option", "static_graph_inputs"]
