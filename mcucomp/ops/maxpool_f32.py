"""MaxPool (1-D, 2-D, 3-D; pads, strides, dilations, ceil_mode, the optional Indices output) and GlobalMaxPool.

Serves float32 and, for MaxPool's 8-bit tests and models, int8 and uint8 data (the `dtype` param)."""

from __future__ import annotations

from ..ir import DTYPE_BYTES, Graph, Node
from ._overlap import window_margin
from ._window import canonical_pool, depth_fields, is_3d, rank_1_to_3, window_geom
from ._cost import params_dict, window_loop_terms
from .base import DTYPE_CODES, KernelCall, KernelOp, OverlapMargin

VALUE_DTYPES = ("float32", "int8", "uint8")


def _values_dtype(node: Node, g: Graph) -> bool:
    """The input and the pooled values (output 0) must be float32, int8 or uint8."""
    return all(g.tensors[n].dtype in VALUE_DTYPES for n in (node.inputs[0], node.outputs[0]))


def _indices_used(node: Node, g: Graph) -> bool:
    """True when MaxPool's Indices output (output 1) is read or is a graph output."""
    extra = node.outputs[1] if len(node.outputs) > 1 else ""
    return bool(extra) and (extra in g.outputs or bool(g.consumers(extra)))


class MaxPoolF32(KernelOp):
    """MaxPool and GlobalMaxPool on NCW/NCHW/NCDHW tensors."""

    name = "maxpool_f32"
    onnx_ops = ("MaxPool", "GlobalMaxPool")
    constraints = (_values_dtype, rank_1_to_3)

    def lower(self, node: Node, g: Graph) -> None:
        """Canonical window; an unused Indices output is dropped."""
        canonical_pool(node, g)
        node.outputs = node.outputs[:2] if _indices_used(node, g) else node.outputs[:1]
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_maxpool_f32(params, x, y, indices|NULL)."""
        params = [("g", window_geom(node, g)), *depth_fields(node, g),
                  ("dtype", DTYPE_CODES[g.tensors[node.inputs[0]].dtype]),
                  ("storage_order", int(node.attrs.get("storage_order", 0)))]
        indices = node.outputs[1] if len(node.outputs) > 1 else None
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0], indices])

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """The window loop of the element type (a compare per tap read), plus an index per output when asked."""
        p = params_dict(self.call(node, g))
        path = g.tensors[node.inputs[0]].dtype + ("_indices" if len(node.outputs) > 1 else "")
        return path, {"calls": 1, **window_loop_terms(p["g"], p)}

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """The window margin (_overlap.window_margin): mcu_maxpool_f32 goes plane by plane, outputs row-major, and
        writes each after comparing its (dilated) window's taps inside the input; not at all for 3-D data."""
        if is_3d(node, g):
            return None
        return OverlapMargin(window_margin(node, g, DTYPE_BYTES[g.tensors[node.outputs[0]].dtype]))


OP = MaxPoolF32()
