"""Float32 GridSample (opset 16-22): nearest / linear / cubic (opset 16's bilinear / bicubic), zeros / border /
reflection padding, align_corners, 1 to 3 spatial dims; the grid is a runtime tensor."""

from __future__ import annotations

from ..ir import Graph, Node
from .base import KernelCall, KernelOp, all_float32, numel, shape

#: mode attribute → MCU_GS_* (opset 16 names included).
MODES = {"nearest": 0, "linear": 1, "bilinear": 1, "cubic": 2, "bicubic": 2}
#: padding_mode attribute → MCU_GS_*.
PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}


def _text(node: Node, attr: str, default: str) -> str:
    """A string attribute as text."""
    v = node.attrs.get(attr, default)
    return v.decode() if isinstance(v, bytes) else v


def _layout(node: Node, g: Graph) -> bool:
    """X must be [N, C, d1, ...] with 1 to 3 spatial dims and the grid [N, o1, ..., on, n] with the same n."""
    xs, gs = shape(g, node.inputs[0]), shape(g, node.inputs[1])
    nd = len(xs) - 2
    return 1 <= nd <= 3 and len(gs) == nd + 2 and gs[0] == xs[0] and gs[-1] == nd


def _modes(node: Node, g: Graph) -> bool:
    """mode must be nearest, linear or cubic (bilinear or bicubic before opset 20) and padding_mode zeros, border or
    reflection."""
    return _text(node, "mode", "linear") in MODES and _text(node, "padding_mode", "zeros") in PADDINGS


class GridSampleF32(KernelOp):
    """Samples the input at grid locations, point by point."""

    name = "grid_sample_f32"
    onnx_ops = ("GridSample",)
    constraints = (all_float32, _layout, _modes)

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_grid_sample_f32(params, x, grid, y)."""
        xs, gs = shape(g, node.inputs[0]), shape(g, node.inputs[1])
        nd = len(xs) - 2
        params = [("n", xs[0]), ("c", xs[1]), ("nd", nd), ("dims", list(xs[2:]) + [1] * (3 - nd)),
                  ("points", numel(gs[1:-1])), ("mode", MODES[_text(node, "mode", "linear")]),
                  ("padding", PADDINGS[_text(node, "padding_mode", "zeros")]),
                  ("align_corners", int(node.attrs.get("align_corners", 0)))]
        return KernelCall(self.name, params, [node.inputs[0], node.inputs[1], node.outputs[0]])

    def macs(self, node: Node, g: Graph) -> int:
        """One multiply-add per tap of every output element."""
        taps = {0: 1, 1: 2, 2: 4}[MODES[_text(node, "mode", "linear")]] ** (len(shape(g, node.inputs[0])) - 2)
        return g.tensors[node.outputs[0]].size * taps


OP = GridSampleF32()
