"""Float64 Add, Sub, Mul, Div, Max, Min and Mod: binary_f32's kernel on double."""

from __future__ import annotations

from ..ir import Graph, Node
from ._elementwise import broadcast_fits, dtype
from .binary_f32 import BinaryF32


def _all_float64(node: Node, g: Graph) -> bool:
    """Both inputs and the output must be float64."""
    return {dtype(g, n) for n in node.inputs + node.outputs} == {"float64"}


class BinaryF64(BinaryF32):
    """binary_f32 on float64 tensors, a kernel of its own so float32 models do not link software double arithmetic."""

    name = "binary_f64"
    depends = ("binary_f32",)
    constraints = (_all_float64, broadcast_fits)


OP = BinaryF64()
