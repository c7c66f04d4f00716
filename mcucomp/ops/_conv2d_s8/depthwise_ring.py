"""conv2d_s8's in-place depthwise path (runtime_c/kernels/conv2d_s8_depthwise_ring.c): when its full blocks take
the staged rows, and its cost terms."""

from __future__ import annotations


#: Words of one staged row of the in-place variant's DSP loop (MCU_CONV2D_S8_DW_ROW_WORDS in
#: conv2d_s8_depthwise_ring.c): W + 3 must fit.
DW_ROW_WORDS = 64


def ring_rows_staged(geom: dict, float_rq: bool) -> bool:
    """Whether the in-place variant's full blocks take the staged rows on DSP cores with an FPU
    (conv2d_s8_depthwise_ring.c mcu_conv2d_s8_dw_rows_fit): plain float requantization, 3x3 undilated windows with
    pads of 1, W + 3 <= DW_ROW_WORDS."""
    window = (geom["k_h"], geom["k_w"], geom["dil_h"], geom["dil_w"], geom["pad_t"], geom["pad_l"])
    return float_rq and window == (3, 3, 1, 1, 1, 1) and geom["w_in"] + 3 <= DW_ROW_WORDS


def ring_terms(geom: dict, win, float_rq: bool) -> dict[str, int]:
    """The in-place depthwise loops (conv2d_s8_depthwise_ring.c): per four-channel block and pixel the ring
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
