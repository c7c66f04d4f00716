"""int8 convolution, channels-last (the paths of PATHS, each its own runtime file and cost-terms module in
_conv2d_s8/), lowered from QLinearConv or DQ→Conv→Q."""

from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..ir import Graph, Node
from ._conv2d_s8.depthwise import depthwise_terms
from ._conv2d_s8.depthwise_ring import ring_rows_staged, ring_terms
from ._conv2d_s8.few_channels import few_channels_terms
from ._conv2d_s8.im2col import im2col_gather_rows
from ._conv2d_s8.pointwise import pointwise_swept, sweep_terms
from ._cost import params_dict, requant_terms, window
from ._overlap import conv_s8_overlap, descending
from ._window import spatial_rank, window_geom
from .base import ArrayRef, KernelCall, KernelOp, OverlapMargin, onnx_shape

#: MCU_CONV2D_S8_* in runtime_c/kernels/conv2d_s8.h
PATHS = {"general": 0, "depthwise": 1, "pointwise": 2, "im2col": 3, "direct": 4, "local": 5, "depthwise_ring": 6,
         "few_channels": 7}

#: The depthwise path's windows have at most this many taps (MCU_CONV2D_S8_DW_TAPS in conv2d_s8_dw.h: per-pixel tap
#: tables on the stack); larger kernels take the general path.
DW_TAPS = 25

#: Ring slots (pixels) of the in-place depthwise variant (MCU_CONV2D_S8_DW_RING in conv2d_s8_depthwise_ring.c).
DW_RING = 64


#: Stack bytes of the local path's two windows (MCU_CONV2D_S8_LOCAL_COL in runtime_c/kernels/conv2d_s8.h).
LOCAL_COL = 96


#: The few-channels path: input channels at most, taps of a window at most (both windows fit LOCAL_COL) and stack
#: bytes of its weight stream on DSP cores (MCU_CONV2D_S8_FEW_* in runtime_c/kernels/conv2d_s8.h).
FEW_C_IN = 4
FEW_TAPS = LOCAL_COL // 2
FEW_STREAM = 1536


def depthwise(node: Node, g: Graph) -> bool:
    """group == c_in == c_out (one input channel per output channel): the depthwise path."""
    c_in = onnx_shape(g, node.inputs[0])[1]
    return node.attrs.get("group", 1) == c_in == onnx_shape(g, node.outputs[0])[1]


def same_in_both_layouts(node: Node, g: Graph) -> bool:
    """True when input and output hold the same bytes channels-first and channels-last (C == 1 or one pixel)."""
    return all(d[1] == 1 or int(np.prod(d[2:])) == 1
               for d in (onnx_shape(g, node.inputs[0]), onnx_shape(g, node.outputs[0])))


def kernel_volume(node: Node, g: Graph) -> int:
    """Taps of one output: c_in / group * k_h * k_w."""
    return int(np.prod(onnx_shape(g, node.inputs[1])[1:]))


def column_taps(node: Node, g: Graph) -> int:
    """Taps of one gathered window (im2col, local): the kernel volume rounded up to a multiple of 4, so the DSP
    loops take whole 4-tap steps (the extra taps: zero weights against zero bytes; MCU_CONV2D_S8_COLUMN in C)."""
    return -(-kernel_volume(node, g) // 4) * 4


def kernel_taps(node: Node) -> int:
    """k_h * k_w (k for a 1-D conv)."""
    return int(np.prod(node.attrs["kernel"]))


def few_stream_bytes(node: Node, g: Graph) -> int:
    """Bytes of the few-channels path's weight stream: per group of four output channels 4 biases, 4 scales and
    4 int16 lane pairs per tap pair (conv2d_s8_few_channels.c mcu_conv2d_s8_few_dsp)."""
    return -(-onnx_shape(g, node.outputs[0])[1] // 4) * (8 + 4 * -(-kernel_volume(node, g) // 2)) * 4


def few_channels(node: Node, g: Graph) -> bool:
    """A group-1 conv over at most FEW_C_IN input channels without weight zero points whose window has at most
    FEW_TAPS taps and whose weight stream fits FEW_STREAM bytes: the first convolution of an image (3x3x3) or audio
    (10x4x1) model."""
    return (onnx_shape(g, node.inputs[0])[1] <= FEW_C_IN and node.attrs.get("w_zp") is None
            and kernel_volume(node, g) <= FEW_TAPS and few_stream_bytes(node, g) <= FEW_STREAM)


def fast_path(node: Node, g: Graph) -> str:
    """The path a conv takes when its scratch is granted: pointwise, few_channels (no scratch) or im2col GEMM (group
    1), depthwise (weights without zero points, at most DW_TAPS taps), general."""
    if depthwise(node, g) and node.attrs.get("w_zp") is None and kernel_taps(node) <= DW_TAPS:
        return "depthwise"
    if node.attrs.get("group", 1) != 1:
        return "general"
    a = node.attrs
    if list(a["kernel"]) == [1, 1] and not any(a["pads"]):
        return "pointwise"
    return "few_channels" if few_channels(node, g) else "im2col"


def ring_lag(node: Node, g: Graph) -> int | None:
    """Input pixels a window reaches below its own output pixel (pad_t * W + pad_l) when the depthwise path could
    run in place with a ring (stride 1, output grid == input grid, the lag below DW_RING); None otherwise."""
    geom = dict(window_geom(node, g))
    same_grid = (geom["h_out"], geom["w_out"]) == (geom["h_in"], geom["w_in"])
    if fast_path(node, g) != "depthwise" or (geom["stride_h"], geom["stride_w"]) != (1, 1) or not same_grid:
        return None
    lag = geom["pad_t"] * geom["w_in"] + geom["pad_l"]
    return lag if lag < DW_RING else None


#: Narrowest input row for which the in-place variant's staged rows beat the pixel pairs: an odd width wastes half
#: of its last pair (simulated on the M4: 6 and wider faster, by 5% at 6x6x64 and 8x8x128, 19% at 12x12x32, 32% at
#: 24x24x8; KWS's 25x5x64 4% slower, 3x3x128 48% slower).
DW_ROWS_MIN_WIDTH = 6


def ring_preferred(node: Node, g: Graph) -> bool:
    """Whether the in-place variant is also the faster one, so that it runs whatever memory.choose_scratch decides:
    its full blocks take the staged rows (ring_rows_staged, read from the requantization mode as the cost terms do:
    float mode means an FPU and DSP core), rows of at least DW_ROWS_MIN_WIDTH pixels, at least one full block."""
    if ring_lag(node, g) is None:
        return False
    geom = dict(window_geom(node, g))
    return (ring_rows_staged(geom, node.attrs["rq"].plain()) and geom["w_in"] >= DW_ROWS_MIN_WIDTH
            and geom["c_in"] >= 4)


def conv_path(node: Node, g: Graph) -> str:
    """The path the C takes: the fast one, or when memory.choose_scratch denied the optional extra (the im2col
    scratch; the depthwise path's overlap margin), `local` (im2col with two windows of at most LOCAL_COL bytes on the
    stack), `direct` (group 1, windows read in place) or `depthwise_ring` (in place, a ring of the overwritten
    inputs on the stack, or staged rows: then also where ring_preferred says it is the faster)."""
    path = fast_path(node, g)
    if node.attrs.get("scratch", True) is False and path in SCRATCH:
        return "local" if SCRATCH[path](node, g) <= LOCAL_COL else "direct"
    if path == "depthwise" and ring_lag(node, g) is not None and (node.attrs.get("scratch", True) is False
                                                                  or ring_preferred(node, g)):
        return "depthwise_ring"
    return path


#: Bytes of x_zp the paths that read the padding from a row of it take: direct, a kernel row's taps (k_w * c_in);
#: depthwise, one tap (c_in).
ZROW = {"direct": lambda node, g: node.attrs["kernel"][-1] * onnx_shape(g, node.inputs[0])[1],
        "depthwise": lambda node, g: onnx_shape(g, node.inputs[0])[1],
        "depthwise_ring": lambda node, g: onnx_shape(g, node.inputs[0])[1]}

#: Scratch bytes of the paths that take one: two pixels' windows (im2col).
SCRATCH = {"im2col": lambda node, g: 2 * column_taps(node, g)}


def packed_weights(node: Node, g: Graph, path: str) -> np.ndarray:
    """The weights in the order the path reads them: depthwise tap by tap, the channels of a tap contiguous (one row
    per tap, C bytes); every other path output channel by output channel, each as kernel row, kernel column, input
    channel (NHWC windows); im2col, local and few_channels rows padded with zeros to column_taps (few_channels
    splits them into int16 lanes on the stack at run time)."""
    w = g.const(node.inputs[1]).astype(np.int8)
    w4 = w.reshape(w.shape[0], w.shape[1], 1, w.shape[2]) if w.ndim == 3 else w
    if path in ("depthwise", "depthwise_ring"):
        return np.ascontiguousarray(w4.reshape(w4.shape[0], -1).T).reshape(-1)
    rows = np.ascontiguousarray(w4.transpose(0, 2, 3, 1)).reshape(w4.shape[0], -1)
    if path in ("im2col", "local", "few_channels"):
        rows = np.pad(rows, ((0, 0), (0, column_taps(node, g) - rows.shape[1])))
    return rows.reshape(-1)


def folded_bias(g: Graph, node: Node) -> np.ndarray:
    """bias[oc] - x_zp * sum_k (w[oc][k] - w_zp[oc]): every path's accumulator start (exact in int32)."""
    w = g.const(node.inputs[1]).astype(np.int64).reshape(onnx_shape(g, node.inputs[1])[0], -1)
    w_zp = node.attrs.get("w_zp")
    if w_zp is not None:
        w = w - np.asarray(w_zp, np.int64)[:, None]
    bias = g.const(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    folded = (0 if bias is None else bias.astype(np.int64)) - node.attrs["x_zp"] * w.sum(axis=1)
    if np.abs(folded).max() >= 2**31:
        raise ModelError(f"Conv '{node.name}': bias and zero-point terms overflow int32; requantize the model.")
    return folded.astype(np.int32)


class Conv2dS8(KernelOp):
    """Quantized Conv: attrs x_zp, w_zp (array or None), rq (mcucomp.quant.Requant) and canonical window."""

    name = "conv2d_s8"
    cost_paths = ("pointwise", "im2col", "few_channels", "depthwise", "depthwise3x3", "depthwise_ring",
                  "depthwise3x3_ring", "general")
    #: `local` is im2col with both windows on the stack, `direct` the same block dot read in place one kernel row at
    #: a time: both are rare in the calibration set (they run only where im2col's scratch would grow the arena), so
    #: they take im2col's fitted per-dot, per-quad and per-pixel-pair cycles.
    cost_families = {"local": "im2col", "direct": "im2col"}
    def channels_last(self, node: Node, g: Graph) -> bool:
        """Every 1-D and 2-D conv runs channels-last (the C kernel knows no other layout)."""
        return spatial_rank(node, g) <= 2

    def scratch_optional(self, node: Node, g: Graph) -> bool:
        """The im2col path's scratch: without it, the local or direct path; the depthwise path's negative overlap
        margin (pixel pairs read windows reaching (W + 1) pixels back): without it, the ring variant (in place; no
        choice where ring_preferred)."""
        return fast_path(node, g) in SCRATCH or (ring_lag(node, g) is not None and not ring_preferred(node, g))

    def call(self, node: Node, g: Graph) -> KernelCall:
        """mcu_conv2d_s8_<path>(params, x, y, scratch|NULL), the path's own file (runtime_c/kernels/conv2d_s8_<path>.c,
        so a model links the paths its layers take and no other): packed weights and the folded bias are in the
        params."""
        if node.attrs.get("layout") != "nhwc" and not same_in_both_layouts(node, g):
            raise RuntimeError(f"Conv '{node.name}' reached conv2d_s8 channels-first; the layout pass must run it "
                               "channels-last.")
        rq_fields, arrays = node.attrs["rq"].params(node.name)
        w_zp = node.attrs.get("w_zp")
        if w_zp is not None:
            arrays[f"{node.name}_wzp"] = w_zp
        path = conv_path(node, g)
        scratch = SCRATCH[path](node, g) if path in SCRATCH else 0
        arrays[f"{node.name}_wpack"] = packed_weights(node, g, path)
        arrays[f"{node.name}_kbias"] = folded_bias(g, node)
        if path in ZROW:
            arrays[f"{node.name}_zrow"] = np.full(ZROW[path](node, g), node.attrs["x_zp"], np.int8)
        return KernelCall(
            f"{self.name}_{path}",
            [("g", window_geom(node, g, group=node.attrs.get("group", 1))), ("x_zp", node.attrs["x_zp"]),
             ("w_zp", ArrayRef(f"{node.name}_wzp") if w_zp is not None else "NULL"), ("rq", rq_fields),
             ("path", PATHS[path]), ("down", int(descending(node, g))), ("w", ArrayRef(f"{node.name}_wpack")),
             ("kbias", ArrayRef(f"{node.name}_kbias")),
             ("zrow", ArrayRef(f"{node.name}_zrow") if path in ZROW else "NULL"),
             ("rq_plain", int(node.attrs["rq"].plain()))],
            # the C signature ends in `void *scratch`: codegen appends it when scratch > 0, else it is NULL
            [node.inputs[0], node.outputs[0]] + ([] if scratch else [None]),
            arrays,
            scratch,
        )

    def overlap_margin(self, node: Node, g: Graph) -> OverlapMargin | None:
        """Pointwise: from a floor up or to a margin down (pixel pairs in one direction); the other paths: a margin
        down (pixel by pixel, or pairs for im2col; see mcucomp/ops/_overlap.py)."""
        return conv_s8_overlap(node, g, conv_path(node, g))

    def cost_terms(self, node: Node, g: Graph) -> tuple[str, dict[str, int]]:
        """GEMM paths (pointwise, im2col, local, direct): per pixel pair a gather (im2col, local), per 2x2 block one
        k-long dot (direct: one per kernel row) in 16-tap iterations, 4-tap steps and a tail, the blocks of a lone last
        pixel counted apart too; pointwise in the float mode of pointwise_swept: see sweep_terms (the fixed mode and
        the other cores' GEMM block count as before); depthwise(3x3): see depthwise_terms; general: per output every
        tap, checked."""
        call = self.call(node, g)
        p = params_dict(call)
        geom, win = p["g"], window(p["g"])
        path = conv_path(node, g)
        outputs = geom["n"] * geom["c_out"] * win.pixels
        terms = {"calls": 1, **requant_terms(p["rq"], outputs)}
        if path == "pointwise" and pointwise_swept(p["rq"], p["rq_plain"], node.attrs.get("w_zp"),
                                                   kernel_volume(node, g), geom["c_out"]):
            unit = (geom["stride_h"], geom["stride_w"]) == (1, 1)
            return path, {**terms, **sweep_terms(geom["n"] * win.pixels, kernel_volume(node, g), geom["c_out"], unit)}
        if path in ("pointwise", "im2col", "direct", "local"):
            k = column_taps(node, g) if path in ("im2col", "local") else kernel_volume(node, g)
            pairs = -(-geom["n"] * win.pixels // 2)
            blocks = pairs * -(-geom["c_out"] // 2)
            # direct: one dot per kernel row (k_w * c_in taps; rows in the padding read zrow)
            dots, length = (blocks * geom["k_h"], k // geom["k_h"]) if path == "direct" else (blocks, k)
            # a dot: 16-tap iterations (DSP: one assembly loop), then 4-tap steps, then single taps
            gemm = {"pixel_pairs": pairs, "blocks": blocks, "block_dots": dots, "block_sixteens": dots * (length // 16),
                    "block_quads": dots * (length % 16 // 4), "block_tail": dots * (length % 4),
                    # a lone last pixel's blocks (ARMv6-M: a 1x2 block, one output per channel)
                    "lone_blocks": geom["n"] * win.pixels % 2 * -(-geom["c_out"] // 2)}
            if path in ("im2col", "local"):
                gemm.update({"gathered": pairs * 2 * k, **im2col_gather_rows(geom)})
            return path, {**terms, **gemm}
        if path == "few_channels":
            return path, {**terms, **few_channels_terms(geom, column_taps(node, g), descending(node, g))}
        taps_out = geom["n"] * geom["c_out"] * win.pixels * win.taps
        if path in ("depthwise", "depthwise_ring"):
            name = path.replace("depthwise", "depthwise3x3" if (geom["k_h"], geom["k_w"]) == (3, 3) else "depthwise")
            float_rq = bool(p["rq_plain"])
            return name, {**terms, **(depthwise_terms(geom, win, float_rq) if path == "depthwise"
                                      else ring_terms(geom, win, float_rq))}
        cin_g = geom["c_in"] // geom["group"]
        return "general", {**terms, "pixels": geom["n"] * win.pixels, "taps": taps_out,
                           "tap_channels": taps_out * cin_g}

    def macs(self, node: Node, g: Graph) -> int:
        """Output elements times the kernel volume of one group."""
        return g.tensors[node.outputs[0]].size * kernel_volume(node, g)


OP = Conv2dS8()
