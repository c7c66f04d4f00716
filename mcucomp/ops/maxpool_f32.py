"""MaxPool (1-D, 2-D, 3-D; pads, strides, dilations, ceil_mode, the optional Indices output) and GlobalMaxPool.

Serves float32 and, for MaxPool's 8-bit tests and models, int8 and uint8 data (the `dtype` param)."""

from __future__ import annotations

from ..ir import DTYPE_BYTES, Graph, Node
from ._layout import all_images, is_nhwc
from ._overlap import window_margin, window_margin_nhwc
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


def _inside_2x2(p: dict, indices: bool) -> bool:
    """Whether mcu_maxpool_f32 takes its float 2x2 loop for these params: float NCHW without Indices, 2x2 windows
    at stride 2 and dilation 1, all inside the input."""
    geom = p["g"]
    return (p["dtype"] == DTYPE_CODES["float32"] and not p["channels_last"] and not indices
            and (p["d_in"], p["d_out"], p["k_d"], p["pad_f"]) == (1, 1, 1, 0)
            and (geom["k_h"], geom["k_w"], geom["stride_h"], geom["stride_w"]) == (2, 2, 2, 2)
            and (geom["dil_h"], geom["dil_w"], geom["pad_t"], geom["pad_l"]) == (1, 1, 0, 0)
            and 2 * geom["h_out"] <= geom["h_in"] and 2 * geom["w_out"] <= geom["w_in"])


class MaxPoolF32(KernelOp):
    """MaxPool and GlobalMaxPool on NCW/NCHW/NCDHW tensors."""

    name = "maxpool_f32"
    cost_paths = (*(f"{t}{i}" for t in VALUE_DTYPES for i in ("", "_indices")), "int8_nhwc", "float32_2x2")
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
                  ("storage_order", int(node.attrs.get("storage_order", 0))), ("channels_last", int(is_nhwc(node)))]
        indices = node.outputs[1] if len(node.outputs) > 1 else None
        return KernelCall(self.name, params, [node.inputs[0], node.outputs[0], indices])

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """The window loop of the element type (a compare per tap read), plus an index per output when asked; the
        channels-last loop is its own path, and so are float 2x2 windows at stride 2 inside the input (no bounds
        checks: per output row a step of two input rows, per output four taps)."""
        p = params_dict(self.call(node, g))
        geom = p["g"]
        if _inside_2x2(p, len(node.outputs) > 1):
            return "float32_2x2", {"calls": 1, "rows": geom["n"] * geom["c_in"] * geom["h_out"],
                                   "outputs": geom["n"] * geom["c_in"] * geom["h_out"] * geom["w_out"]}
        path = g.tensors[node.inputs[0]].dtype + ("_indices" if len(node.outputs) > 1 else "") + \
            ("_nhwc" if is_nhwc(node) else "")
        return path, {"calls": 1, **window_loop_terms(p["g"], p)}

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """The window margin: mcu_maxpool_f32 writes each output after comparing its (dilated) window's taps inside
        the input, plane by plane in row-major output order (_overlap.window_margin) or channels-last pixel by pixel,
        every channel in turn (_overlap.window_margin_nhwc); not at all for 3-D data."""
        if is_3d(node, g):
            return None
        margin = window_margin_nhwc if is_nhwc(node) else window_margin
        return OverlapMargin(margin(node, g, DTYPE_BYTES[g.tensors[node.outputs[0]].dtype]))

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout for int8 1-D and 2-D pools without Indices (channels-last: pixel by pixel, each channel's
        window read c_in elements apart); the quantized models' data is int8 by then."""
        return (len(node.outputs) == 1 and g.tensors[node.inputs[0]].dtype == "int8" and not is_3d(node, g)
                and all_images(node, g))


OP = MaxPoolF32()
