"""ONNX frontend: read, check, inline, convert, fix shapes, infer and fold constants."""

from .loader import load_onnx, parse_shape_option

__all__ = ["load_onnx", "parse_shape_option"]
