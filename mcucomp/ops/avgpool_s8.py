"""int8 average pooling: integer sum with one requantization per output (whole-image windows as onnxruntime's
QLinearGlobalAveragePool, other windows by the scale of their tap count), or the float DQ/pool/Q path."""

from __future__ import annotations

import numpy as np

from ..fixedpoint import quantize_multiplier
from ..fixedpoint import saturating_scale
from ..quant import QRANGE, combined_scale
from ..ir import Graph, Node
from ._layout import all_images, is_nhwc
from ._overlap import window_margin, window_margin_nhwc
from ._window import window_geom
from ._cost import params_dict, requant_terms, window
from .base import ArrayRef, KernelCall, KernelOp, OverlapMargin

COUNT_MODES = {"valid": 0, "kernel": 1, "padded": 2}  # MCU_AVGPOOL_S8_COUNT_* in runtime_c/kernels/avgpool_s8.h
MODES = {"global_int": 0, "float": 1, "window_int": 2}  # MCU_AVGPOOL_S8_* in runtime_c/kernels/avgpool_s8.h


def _count_scale(x_scale: float, y_scale: float, count: int) -> np.ndarray:
    """x_scale / (y_scale · count) as float32: float32 arithmetic in that order (mcucomp.quant.combined_scale, which
    turns to float64 where a step leaves the normal float32 range); 1 / count joins x_scale where y_scale · count
    overflows."""
    with np.errstate(over="ignore"):
        y_count = np.float32(y_scale) * np.float32(count)
    if np.isfinite(y_count):
        return combined_scale(x_scale, 1.0, y_count)
    return combined_scale(x_scale, 1.0 / count, y_scale)


def count_scales(attrs: dict) -> np.ndarray:
    """The float32 requantization scale x_scale / (y_scale · count) of an integer window sum, by divisor count:
    one entry (the whole window) for 'global_int', entries 0 .. window for 'window_int' (0 repeats 1, never used);
    capped where every nonzero sum saturates (mcucomp.fixedpoint.saturating_scale)."""
    window = attrs["kernel"][0] * attrs["kernel"][1]
    counts = [window] if attrs["mode"] == "global_int" else [1, *range(1, window + 1)]
    scales = np.concatenate([_count_scale(attrs["x_scale"], attrs["y_scale"], k) for k in counts])
    return np.minimum(scales, np.float32(saturating_scale(attrs["qmin"], attrs["qmax"], attrs["y_zp"])))


def pool_kernel(attrs: dict, x_dtype: str, mode: str) -> tuple[str, dict]:
    """The kernel and attrs of an integer pool: avgpool_s8, or for a whole-image pool of one-pixel images a lut8 (each
    output its input code requantized by the pool's scale, the integer reference's arithmetic code by code)."""
    if attrs["mode"] != "global_int" or list(attrs["kernel"]) != [1, 1]:
        return "avgpool_s8", attrs
    from ..intref._arith import requantize  # the pool's own requantization (intref imports this module)

    lo, hi = QRANGE[x_dtype]
    codes = np.arange(lo, hi + 1, dtype=np.int64)
    table = requantize(codes - attrs["x_zp"], mode, count_scales(attrs)[0], attrs["y_zp"], attrs["qmin"],
                       attrs["qmax"])
    return "lut8", {"table": table.astype(np.int32), "x_lo": lo, "y_shift": 0}


class AvgPoolS8(KernelOp):
    """attrs: mode ('global_int' | 'window_int' | 'float'), requant ('float' | 'fixed'), x/y scale and zp, qmin,
    qmax, count (the divisor: 'valid' taps, 'kernel' size or taps inside the 'padded' input), canonical window."""

    name = "avgpool_s8"
    cost_paths = ("global_words_nhwc", "window_words_nhwc", "global_int_nhwc", "window_int_nhwc", "global_int",
                  "window_int", "float", "float_nhwc")

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_avgpool_s8(params, x, y)."""
        a = node.attrs
        # integer modes: the requantization indexed by the tap count ('per_channel' selects entry `count`)
        rq = [("scale", "NULL"), ("mult", "NULL"), ("shift", "NULL"), ("per_channel", int(a["mode"] == "window_int")),
              ("div", 0.0), ("zp", a["y_zp"]), ("qmin", a["qmin"]), ("qmax", a["qmax"])]
        arrays = {}
        if a["mode"] != "float" and a.get("requant") == "fixed":
            pairs = [quantize_multiplier(float(s)) for s in count_scales(a)]
            arrays[f"{node.name}_mult"] = np.array([m for m, _ in pairs], np.int32)
            arrays[f"{node.name}_shift"] = np.array([s for _, s in pairs], np.int32)
            rq[1], rq[2] = ("mult", ArrayRef(f"{node.name}_mult")), ("shift", ArrayRef(f"{node.name}_shift"))
        elif a["mode"] != "float":
            arrays[f"{node.name}_scale"] = count_scales(a)
            rq[0] = ("scale", ArrayRef(f"{node.name}_scale"))
        return KernelCall(
            self.name,
            [("g", window_geom(node, g, group=1)), ("channels_last", int(is_nhwc(node))), ("mode", MODES[a["mode"]]),
             ("count_mode", COUNT_MODES[a.get("count", "valid")]), ("pad_b", a["pads"][2]), ("pad_r", a["pads"][3]),
             ("x_scale", a["x_scale"]),
             ("y_scale", a["y_scale"]), ("x_zp", a["x_zp"]), ("rq", rq)],
            [node.inputs[0], node.outputs[0]],
            arrays,
        )

    def macs(self, node: Node, g: Graph) -> int:
        """One add per window element per output."""
        return g.tensors[node.outputs[0]].size * node.attrs["kernel"][0] * node.attrs["kernel"][1]

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """Every tap of every window bounds-checked, those inside summed in int ('global_int', 'window_int') or in
        float ('float'); per output a requantization (integer modes) or two float divisions ('float'); channels-last
        paths end in '_nhwc': integer ones find each output pixel's inside taps once and sum every channel without
        checks, four channels per word ('window_words_nhwc', 4k channels) or one by one; channels-last whole-image
        sums of 4k channels read one word per pixel and four channels ('global_words_nhwc')."""
        p = params_dict(self.call(node, g))
        geom, win = p["g"], window(p["g"])
        planes = geom["n"] * geom["c_out"]
        outputs = planes * win.pixels
        terms = {"calls": 1, "kernel_rows": outputs * geom["k_h"], "taps": outputs * win.taps,
                 "valid_taps": planes * win.taps_valid}
        suffix = "_nhwc" if is_nhwc(node) else ""
        if node.attrs["mode"] == "global_int" and is_nhwc(node) and geom["c_in"] % 4 == 0 and win.pixels == 1 \
                and geom["k_h"] == geom["h_in"] and geom["k_w"] == geom["w_in"]:
            # mcu_avgpool_s8_global_nhwc: one word (four channels) per pixel, a lane flush per 256 pixels
            words = geom["n"] * geom["c_in"] // 4 * geom["h_in"] * geom["w_in"]
            return "global_words_nhwc", {"calls": 1, "words": words, **requant_terms(p["rq"], outputs)}
        if node.attrs["mode"] != "float" and is_nhwc(node):
            # mcu_avgpool_s8_window_int_nhwc: the inside taps found once per output pixel, then per channel (per
            # four channels, one word per tap, when the word lanes hold the window) a sum without bounds checks
            pixels = geom["n"] * win.pixels
            words = geom["c_in"] % 4 == 0 and geom["k_h"] * geom["k_w"] <= 256
            loop = {"calls": 1, "pixels": pixels, "kernel_steps": pixels * (geom["k_h"] + geom["k_w"])}
            if words:
                loop |= {"words": planes * win.taps_valid // 4, "groups": outputs // 4}
                return "window_words_nhwc", {**loop, **requant_terms(p["rq"], outputs)}
            return node.attrs["mode"] + suffix, {**loop, "valid_taps": planes * win.taps_valid, "outputs": outputs,
                                                  **requant_terms(p["rq"], outputs)}
        if node.attrs["mode"] != "float":
            return node.attrs["mode"], {**terms, **requant_terms(p["rq"], outputs)}
        return "float" + suffix, {**terms, "outputs": outputs}

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """The window margin: mcu_avgpool_s8 writes each output after summing its (dilated) window's taps inside the
        input, plane by plane in row-major output order (_overlap.window_margin), or channels-last pixel by pixel in
        row-major order, every channel of a pixel in turn (_overlap.window_margin_nhwc)."""
        if is_nhwc(node):
            return OverlapMargin(window_margin_nhwc(node, g, 1))
        return OverlapMargin(window_margin(node, g, 1))

    def channels_last(self, node: Node, g: Graph) -> bool:
        """Either layout for 1-D and 2-D images (mcu_avgpool_s8 steps through a plane c_in elements apart)."""
        return all_images(node, g)


OP = AvgPoolS8()
