"""int8 convolution, channels-last (paths: pointwise, im2col, direct, depthwise, general), lowered from QLinearConv
or DQ→Conv→Q."""

from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..ir import Graph, Node
from ._cost import params_dict, requant_terms, window
from ._overlap import conv_s8_overlap, descending, pixel_pairs
from ._window import spatial_rank, window_geom
from .base import ArrayRef, KernelCall, KernelOp, OverlapMargin, onnx_shape

#: MCU_CONV2D_S8_* in runtime_c/kernels/conv2d_s8.h
PATHS = {"general": 0, "depthwise": 1, "pointwise": 2, "im2col": 3, "direct": 4, "local": 5, "depthwise_ring": 6,
         "few_channels": 7}

#: The depthwise path's windows have at most this many taps (MCU_CONV2D_S8_DW_TAPS in conv2d_s8_dw.c: per-pixel tap
#: tables on the stack); larger kernels take the general path.
DW_TAPS = 25

#: Ring slots (pixels) of the in-place depthwise variant (MCU_CONV2D_S8_DW_RING in conv2d_s8_dw.c).
DW_RING = 64

#: Channels up to which the depthwise path runs pixel pairs (MCU_CONV2D_S8_DW_DEFER in conv2d_s8_dw.c).
DW_DEFER = 256

#: Stack bytes of the local path's two windows (MCU_CONV2D_S8_LOCAL_COL in runtime_c/kernels/conv2d_s8.h).
LOCAL_COL = 96

#: Input channels up to which the pointwise path widens a pixel pair on the stack for the DSP sweeps
#: (MCU_CONV2D_S8_PW_TAPS in conv2d_s8.c).
PW_TAPS = 256

#: The few-channels path: input channels at most, taps of a window at most (both windows fit LOCAL_COL) and stack
#: bytes of its weight stream on DSP cores (MCU_CONV2D_S8_FEW_* in runtime_c/kernels/conv2d_s8.h).
FEW_C_IN = 4
FEW_TAPS = LOCAL_COL // 2
FEW_STREAM = 1536

#: Tap pairs per pass of the few-channels block loop (MCU_CONV2D_S8_FEW_UNROLL in conv2d_s8.c).
FEW_UNROLL = 8


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
    4 int16 lane pairs per tap pair (conv2d_s8.c mcu_conv2d_s8_few_dsp)."""
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


#: Words of one staged row of the in-place variant's DSP loop (MCU_CONV2D_S8_DW_ROW_WORDS in conv2d_s8_dw.c): W + 3
#: must fit.
DW_ROW_WORDS = 64


def ring_rows_staged(geom: dict, float_rq: bool) -> bool:
    """Whether the in-place variant's full blocks take the staged rows on DSP cores with an FPU
    (conv2d_s8_dw.c mcu_conv2d_s8_dw_rows_fit): plain float requantization, 3x3 undilated windows with pads of 1,
    W + 3 <= DW_ROW_WORDS."""
    window = (geom["k_h"], geom["k_w"], geom["dil_h"], geom["dil_w"], geom["pad_t"], geom["pad_l"])
    return float_rq and window == (3, 3, 1, 1, 1, 1) and geom["w_in"] + 3 <= DW_ROW_WORDS


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


def im2col_gather_rows(geom: dict) -> dict[str, int]:
    """Kernel rows the im2col gather copies whole (inside the input, undilated), copies tap by tap (reaching the
    padding along x, or dilated), or fills with x_zp (outside the input along y), over all pixels."""
    inside_x = sum(0 <= ox * geom["stride_w"] - geom["pad_l"] and
                   ox * geom["stride_w"] - geom["pad_l"] + (geom["k_w"] - 1) * geom["dil_w"] < geom["w_in"]
                   for ox in range(geom["w_out"]))
    valid_y = sum(0 <= oy * geom["stride_h"] - geom["pad_t"] + ky * geom["dil_h"] < geom["h_in"]
                  for oy in range(geom["h_out"]) for ky in range(geom["k_h"]))
    whole = inside_x if geom["dil_w"] == 1 else 0
    return {"rows_copied": geom["n"] * valid_y * whole,
            "rows_checked": geom["n"] * valid_y * (geom["w_out"] - whole),
            "rows_padded": geom["n"] * (geom["h_out"] * geom["k_h"] - valid_y) * geom["w_out"]}


def pointwise_swept(rq_fields: dict, plain: bool, w_zp, k: int, c_out: int) -> bool:
    """Whether the pointwise path's C takes the sweeps on DSP cores with an FPU (mcu_conv2d_s8_pointwise_widened):
    plain float requantization (Requant.plain) over the full int8 range, per-channel scales, no weight zero points,
    k % 4 == 0, k <= PW_TAPS, c_out >= 4."""
    full_range = (rq_fields["qmin"], rq_fields["qmax"]) == (-128, 127)
    return (full_range and plain and rq_fields["per_channel"] == 1 and w_zp is None and k % 4 == 0
            and k <= PW_TAPS and c_out >= 4)


def sweep_variant(k: int) -> str:
    """Which of mcu_conv2d_s8_pw_sweep's assembly loops takes k taps (k % 4 == 0): "fixed" (k = 8, 16, 32: one turn
    at constant offsets, the biases' pointer in a core register), "mid" (other k % 32 == 0: 64 taps a turn, a
    k % 64 == 32 entering its first at the middle) or "turn" (any k: 4 taps a turn)."""
    if k in (8, 16, 32):
        return "fixed"
    return "mid" if k % 32 == 0 else "turn"


def sweep_turns(k: int) -> int:
    """Step-loop tests of one 2x2 MAC loop of the sweep (mcu_conv2d_s8_pw_sweep): none for the fixed loop, one per 64
    taps (the first turn perhaps half) for mid, one per 4 taps for turn (sweep_variant)."""
    variant = sweep_variant(k)
    if variant == "fixed":
        return 0
    return -(-k // 64) if variant == "mid" else k // 4


def sweep_terms(pixels: int, k: int, c_out: int, unit_stride: bool) -> dict[str, int]:
    """The pointwise sweeps' loops (conv2d_s8.c, DSP cores with an FPU): one sweep call for all pixel pairs (unit
    stride, c_out % 4 == 0) or one per pair; per pixel pair the widening (8 taps a turn, 4 in the turn variant, no
    loop in the fixed one: its pairs counted apart), per four channels one block (two 2x2 blocks of k / 4 steps and
    sweep_turns tests each, eight values requantized; the fixed variant's and the mid variant's bookkeeping counted
    apart); a lone pixel widened (k / 4 steps), then per four channels one one-pixel block (k / 4 steps, a test per
    64 taps when k % 64 == 0, per 32 when k % 32 == 0, else per 4); the c_out % 4 channels of each pixel pair or lone pixel through the GEMM
    block (`rest_blocks`, one k-long dot each)."""
    pairs, lone = pixels // 2, pixels % 2
    blocks, quads = pairs * (c_out // 4), lone * (c_out // 4)
    variant = sweep_variant(k)
    turns1 = k // (64 if k % 64 == 0 else 32 if k % 32 == 0 else 4)
    rest = (pairs + lone) * -(-(c_out % 4) // 2)
    calls = min(pairs, 1) if unit_stride and c_out % 4 == 0 else pairs
    return {"sweep_calls": calls, "sweep_pairs": pairs, "sweep_fixed_pairs": pairs if variant == "fixed" else 0,
            "sweep_lone": lone,
            "sweep_widened": pairs * (k // (4 if variant == "turn" else 8)), "sweep1_widened": lone * (k // 4),
            "sweep_blocks": blocks, "sweep_fixed_blocks": blocks if variant == "fixed" else 0,
            "sweep_mid_blocks": blocks if variant == "mid" else 0, "sweep_steps": blocks * (k // 2),
            "sweep_turns": blocks * 2 * sweep_turns(k),
            "sweep1_blocks": quads, "sweep1_steps": quads * (k // 4), "sweep1_turns": quads * turns1,
            "rest_blocks": rest, "rest_sixteens": rest * (k // 16), "rest_quads": rest * (k % 16 // 4)}


#: Strides along x that conv2d_s8_dw.c's assembly has slide bodies for (mcu_conv2d_s8_dw_slide_c; C % 4 == 0).
DW_SLIDE_STRIDES = (1, 2)


def depthwise_schedule(geom: dict, slide: bool) -> dict[str, int]:
    """How mcu_conv2d_s8_dw_pairs walks the output pixels (row-major over N, H_out, W_out): with `slide` (the slide
    bodies apply to the layer), from each pixel the run of pairs in its row whose windows lie inside the input (one
    assembly call each); otherwise a pair (q, q + 1) from tap tables, or a lone pixel (the last one, or every pixel
    above DW_DEFER channels). Counts: runs, pairs in runs, table pairs, lone pixels, and the tables built (pixels
    whose window lies inside, border pixels)."""
    h_out, w_out, c = geom["h_out"], geom["w_out"], geom["c_out"]
    pixels, paired = geom["n"] * h_out * w_out, c <= DW_DEFER
    sh, sw = geom["stride_h"], geom["stride_w"]
    counts = dict.fromkeys(("runs", "run_pairs", "pairs", "lone", "tables_inside", "tables_border"), 0)
    q = n = oy = ox = 0
    while q < pixels:
        iy0, ix0 = oy * sh - geom["pad_t"], ox * sw - geom["pad_l"]
        if slide and paired:
            fits = iy0 >= 0 and iy0 + (geom["k_h"] - 1) * geom["dil_h"] < geom["h_in"] and ix0 >= 0
            run = min((w_out - ox) // 2, (geom["w_in"] - 3 - ix0 + sw) // (2 * sw)) if fits else 0
            if run > 0:
                counts["runs"] += 1
                counts["run_pairs"] += run
                q, ox = q + 2 * run, ox + 2 * run
                if ox == w_out:
                    ox, oy = 0, oy + 1
                    if oy == h_out:
                        oy, n = 0, n + 1
                continue
        two = paired and q + 1 < pixels
        for _ in range(1 + two):
            iy0, ix0 = oy * sh - geom["pad_t"], ox * sw - geom["pad_l"]
            inside = (iy0 >= 0 and ix0 >= 0 and iy0 + (geom["k_h"] - 1) * geom["dil_h"] < geom["h_in"]
                      and ix0 + (geom["k_w"] - 1) * geom["dil_w"] < geom["w_in"])
            counts["tables_inside" if inside else "tables_border"] += 1
            ox += 1
            if ox == w_out:
                ox, oy = 0, oy + 1
                if oy == h_out:
                    oy, n = 0, n + 1
        counts["pairs" if two else "lone"] += 1
        q += 1 + two
    return counts


def depthwise_terms(geom: dict, win, float_rq: bool) -> dict[str, int]:
    """The depthwise loops (conv2d_s8_dw.c), as depthwise_schedule walks the pixels. On DSP cores with an FPU and
    plain float requantization (float_rq), 3x3 windows: the runs of pairs inside the input in assembly
    (mcu_conv2d_s8_dw_quads' slide bodies: C % 4 == 0, strides DW_SLIDE_STRIDES, undilated columns): per run a
    call, per pair its quads (each with its requantization) and the second pixel's copy; the other pairs from tap
    tables, their quads in assembly too (the table body; `asm_` terms), their C % 4 left in C. Otherwise every pair
    and lone pixel in C: per pair the four-channel quads (DSP) and the C % 4 left (elsewhere: every channel) over
    every tap for both pixels (each quad then requantized and stored), and the second pixel's C bytes copied from
    the stack; the same loops for one pixel alone. Tables: one add a tap for a window inside the input, checked taps
    at the border."""
    c = geom["c_out"]
    three = (geom["k_h"], geom["k_w"]) == (3, 3)
    slide = float_rq and three and geom["dil_w"] == 1 and c % 4 == 0 and geom["stride_w"] in DW_SLIDE_STRIDES
    sched = depthwise_schedule(geom, slide)
    pairs, lone = sched["pairs"], sched["lone"]
    asm = pairs if float_rq and three and c >= 4 else 0
    c_pairs = pairs - asm
    return {"pixels": geom["n"] * win.pixels, "tables_inside": sched["tables_inside"],
            "tables_border_taps": sched["tables_border"] * win.taps, "slide_runs": sched["runs"],
            "slide_pairs": sched["run_pairs"], "slide_quads": sched["run_pairs"] * (c // 4),
            "asm_pairs": asm, "asm_quads": asm * (c // 4), "pairs": c_pairs, "pair_quads": c_pairs * (c // 4),
            "pair_quad_taps": c_pairs * (c // 4) * win.taps, "pair_tail_taps": pairs * (c % 4) * win.taps,
            "deferred": pairs * c, "lone": lone, "lone_quads": lone * (c // 4),
            "lone_quad_taps": lone * (c // 4) * win.taps, "lone_tail_taps": lone * (c % 4) * win.taps}


def ring_terms(geom: dict, win, float_rq: bool) -> dict[str, int]:
    """The in-place depthwise loops (conv2d_s8_dw.c mcu_conv2d_s8_dw_ring): per four-channel block and pixel the ring
    copy and the requantization; a tap table (checked taps) for border windows and the C % 4 left (elsewhere: every
    window); over every tap the full blocks four channels at a time (DSP; elsewhere one by one, from the table) and
    the C % 4 left one by one. Where ring_rows_staged holds, the full blocks instead go row by row: per block and
    image the set-up, per block and row one call of the assembly and the staged input row (`staged_words`), per
    block and pixel pair the pair's 3x3 taps and requantization."""
    c, pixels = geom["c_out"], geom["n"] * win.pixels
    border = pixels - geom["n"] * win.inside_pixels
    staged = ring_rows_staged(geom, float_rq)
    full = c // 4
    ringed = (c % 4 > 0) if staged else -(-c // 4)  # blocks through the pixel ring
    rows = full * geom["n"] * geom["h_out"] if staged else 0
    return {"block_pixels": ringed * pixels, "border_table_taps": ringed * border * win.taps,
            "tail_table_taps": (c % 4 > 0) * (pixels - border) * win.taps,
            "quad_taps": 0 if staged else full * pixels * win.taps, "tail_taps": (c % 4) * pixels * win.taps,
            "staged_blocks": full * geom["n"] if staged else 0, "staged_rows": rows,
            "staged_words": rows * geom["w_in"], "staged_pairs": rows * -(-geom["w_out"] // 2)}


def few_channels_terms(geom: dict, k: int, down: bool) -> dict[str, int]:
    """The few-channels loops (conv2d_s8.c mcu_conv2d_s8_few): per call the weight stream (words); per pixel pair
    (in the order `down` says) two windows, read in place when both are inside the input (undilated) one output
    column apart, else both gathered kernel row by kernel row by the im2col gather, and split into tap pairs (whole
    words, and the bytes left of each kernel row); a pair located (`pair_locates`) where it is gathered or starts a
    run of in-place pairs in its output row (the run's next pairs step two columns on); per group of four channels (a last partial one stored through
    the stack) the block loop's tap pairs (in passes of FEW_UNROLL) and one requantization of eight outputs.
    Elsewhere, and in other requantization modes, the local path's 2x2 GEMM blocks over every channel (`blocks`,
    `block_sixteens`, `block_quads`: k = column_taps)."""
    pixels = geom["n"] * geom["h_out"] * geom["w_out"]
    pairs, c_out = -(-pixels // 2), geom["c_out"]
    run = geom["k_w"] * geom["c_in"]
    tap_pairs = -(-run * geom["k_h"] // 2)
    q0, q1 = pixel_pairs(pixels, down)
    oy, ox = np.divmod(np.arange(pixels) % (geom["h_out"] * geom["w_out"]), geom["w_out"])
    iy, ix = oy * geom["stride_h"] - geom["pad_t"], ox * geom["stride_w"] - geom["pad_l"]
    inside = ((geom["dil_w"] == 1) & (iy >= 0) & (iy + (geom["k_h"] - 1) * geom["dil_h"] < geom["h_in"])
              & (ix >= 0) & (ix + geom["k_w"] - 1 < geom["w_in"]))
    in_place = inside[q0] & inside[q1] & (q1 == q0 + 1) & (ox[q1] == ox[q0] + 1)
    gathered = pairs - int(in_place.sum())
    inside_x = np.flatnonzero((ix >= 0) & (ix + geom["k_w"] - 1 < geom["w_in"]))
    ox_lo = int(ox[inside_x[0]]) if inside_x.size else 0
    ox_pairs = max(len(set(ox[inside_x].tolist())) - 1, 0) if geom["dil_w"] == 1 else 0
    locates = left = 0
    for first, starts in zip(ox[q0].tolist(), in_place.tolist()):
        if left == 0:   # mcu_conv2d_s8_few_windows: the pairs in place from here in this row, else this one
            locates += 1
            left = ((first - ox_lo) // 2 + 1 if down else (ox_lo + ox_pairs - first + 1) // 2) if starts else 1
        left -= 1
    quads = -(-c_out // 4)
    blocks = pairs * -(-c_out // 2)
    return {"pixel_pairs": pairs, "pair_locates": locates, "pairs_gathered": gathered,
            "gathered_rows": gathered * 2 * geom["k_h"],
            "stream_words": quads * 4 * tap_pairs, "window_words": pairs * geom["k_h"] * (run // 4),
            "window_left": pairs * ((run % 4 * geom["k_h"] + 1) // 2), "quads": pairs * quads,
            "quad_steps": pairs * quads * tap_pairs, "quad_passes": pairs * quads * -(-tap_pairs // FEW_UNROLL),
            "partial_quads": pairs * (c_out % 4 > 0), "blocks": blocks, "block_sixteens": blocks * (k // 16),
            "block_quads": blocks * (k % 16 // 4)}


class Conv2dS8(KernelOp):
    """Quantized Conv: attrs x_zp, w_zp (array or None), rq (mcucomp.quant.Requant) and canonical window."""

    name = "conv2d_s8"
    cost_paths = ("pointwise", "im2col", "few_channels", "depthwise", "depthwise3x3", "depthwise_ring",
                  "depthwise3x3_ring", "general")
    #: the depthwise path lives in its own file pair (runtime_c/kernels/conv2d_s8_dw.[ch])
    depends = ("conv2d_s8_dw",)
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
        """mcu_conv2d_s8(params, x, y, scratch|NULL): packed weights and the folded bias are in the params."""
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
            self.name,
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
