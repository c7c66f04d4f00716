"""Float32 AveragePool and LpPool (1-D, 2-D, 3-D; pads, strides, dilations, ceil_mode, count_include_pad) and
their global variants: one window loop that sums x (average) or |x|^p (Lp norm)."""

from __future__ import annotations

from ..ir import Graph, Node
from ._overlap import window_margin
from ._window import canonical_pool, depth_fields, is_3d, rank_1_to_3, window_geom
from ._cost import params_dict, window_loop_terms
from .base import KernelCall, KernelOp, OverlapMargin, all_float32


def _lp_exponent(node: Node, g: Graph) -> bool:
    """LpPool's p must be an integer of at least 1."""
    return node.op not in ("LpPool", "GlobalLpPool") or int(node.attrs.get("p", 2)) >= 1


def _whole_plane(p: dict) -> bool:
    """Whether mcu_avgpool_f32 takes its whole-plane loop for these params: the average over one window that covers
    the input plane exactly (no pads, dilation 1, one output per plane)."""
    geom = p["g"]
    return (not p["p"] and (p["d_out"], geom["h_out"], geom["w_out"]) == (1, 1, 1)
            and (p["k_d"], geom["k_h"], geom["k_w"]) == (p["d_in"], geom["h_in"], geom["w_in"])
            and (p["dil_d"], geom["dil_h"], geom["dil_w"]) == (1, 1, 1)
            and not any((p["pad_f"], geom["pad_t"], geom["pad_l"], p["pad_bk"], p["pad_b"], p["pad_r"])))


class AvgPoolF32(KernelOp):
    """AveragePool, GlobalAveragePool, LpPool and GlobalLpPool on float32 NCW/NCHW/NCDHW tensors."""

    name = "avgpool_f32"
    cost_paths = ("average", "lp", "global")
    onnx_ops = ("AveragePool", "GlobalAveragePool", "LpPool", "GlobalLpPool")
    constraints = (all_float32, rank_1_to_3, _lp_exponent)

    def lower(self, node: Node, g: Graph) -> None:
        """Canonical window; count_include_pad defaults to 0; `lp` is LpPool's p, 0 for the average."""
        canonical_pool(node, g)
        node.attrs.setdefault("count_include_pad", 0)
        node.attrs["lp"] = int(node.attrs.get("p", 2)) if node.op in ("LpPool", "GlobalLpPool") else 0
        node.op = self.name

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_avgpool_f32(params, x, y)."""
        pads = node.attrs["pads"]
        return KernelCall(self.name, [("g", window_geom(node, g)), *depth_fields(node, g),
                                      ("pad_bk", node.attrs["depth"][4]), ("pad_b", pads[2]), ("pad_r", pads[3]),
                                      ("count_include_pad", int(node.attrs["count_include_pad"])),
                                      ("p", node.attrs["lp"])],
                          [node.inputs[0], node.outputs[0]])

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """The window loop (sum of taps), then a division per output ('average') or a p-th power per tap ('lp'); a
        window that covers each plane exactly, without pads, is a straight sum per plane ('global')."""
        p = params_dict(self.call(node, g))
        geom = p["g"]
        planes = geom["n"] * geom["c_out"]
        if _whole_plane(p):
            plane = p["d_in"] * geom["h_in"] * geom["w_in"]
            return "global", {"calls": 1, "planes": planes, "elements": planes * plane}
        # the taps of each window axis inside the input are counted per output row (y) and per output (x)
        axis_steps = planes * p["d_out"] * geom["h_out"] * (geom["k_h"] + geom["w_out"] * geom["k_w"])
        return "lp" if p["p"] else "average", {"calls": 1, "axis_steps": axis_steps, **window_loop_terms(geom, p)}

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """The window margin (_overlap.window_margin): mcu_avgpool_f32 goes plane by plane, outputs row-major, and
        writes each after summing its (dilated) window's taps inside the input; not at all for 3-D data."""
        if is_3d(node, g):
            return None
        return OverlapMargin(window_margin(node, g, 4))



OP = AvgPoolF32()
