"""conv2d_s8's few-channels path (runtime_c/kernels/conv2d_s8_few_channels.c): its cost terms."""

from __future__ import annotations

import numpy as np

from .._overlap import pixel_pairs


#: Tap pairs per pass of the few-channels block loop (MCU_CONV2D_S8_FEW_UNROLL in conv2d_s8_few_channels.c).
FEW_UNROLL = 8


def few_channels_terms(geom: dict, k: int, down: bool) -> dict[str, int]:
    """The few-channels loops (conv2d_s8_few_channels.c): per call the weight stream (words); per pixel pair
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
