"""conv2d_f32's im2col path (runtime_c/kernels/conv2d_f32_im2col.c): its scratch and cost terms."""

from __future__ import annotations

import numpy as np

from .._cost import axis_valid_taps
from .gemm import BLOCK_OC, BLOCK_PX, block_terms


def column_taps(geom: dict) -> int:
    """Taps of one output's column: c_in * k_h * k_w."""
    return geom["c_in"] * geom["k_h"] * geom["k_w"]


#: Output channels below which the im2col path reads the blocks it can in place: that costs an offset load and add per
#: tap (per kernel row where reads_rows_in_place) of each 4-channel block, where a gather costs a copy per tap shared
#: by all c_out / 4 blocks (simulated on the M4, tap by tap: 3x3 16->16 at 32x32 3.46 -> 3.21 cycles/MAC; 32->32 at
#: 16x16 even; a 1-D 32->64 2.82 -> 2.92; a row at a time: ResNet-8's 3x3 32->32 at 16x16 2.96 -> 2.90).
IN_PLACE_C_OUT = 32
IN_PLACE_ROWS_C_OUT = 64


def reads_rows_in_place(geom: dict) -> bool:
    """Whether the blocks read in place take a kernel row's three taps a turn (MCU_F32_IN_PLACE_ROWS: k_w 3, dil_w 1;
    one offset read and add per row instead of per tap)."""
    return geom["k_w"] == 3 and geom["dil_w"] == 1


def reads_in_place(geom: dict) -> bool:
    """Whether the conv gets a taps table (mcu_conv2d_f32_im2col then reads the blocks it can in place)."""
    return geom["c_out"] < (IN_PLACE_ROWS_C_OUT if reads_rows_in_place(geom) else IN_PLACE_C_OUT)


def window_offsets(geom: dict) -> np.ndarray:
    """The taps table of the blocks read in place: per tap (input channel, kernel row, column) its offset in floats
    from the window's first input, c * h_in * w_in + ky * dil_h * w_in + kx * dil_w."""
    c, ky, kx = np.meshgrid(np.arange(geom["c_in"]), np.arange(geom["k_h"]), np.arange(geom["k_w"]), indexing="ij")
    offsets = c * geom["h_in"] * geom["w_in"] + ky * geom["dil_h"] * geom["w_in"] + kx * geom["dil_w"]
    return offsets.reshape(-1).astype(np.int32)


def row_span(geom: dict) -> int:
    """Floats of one input row a row block's window spans across (mcu_conv2d_f32_row_span)."""
    return (BLOCK_PX - 1) * geom["stride_w"] + (geom["k_w"] - 1) * geom["dil_w"] + 1


def im2col_scratch(geom: dict) -> int:
    """Bytes of one block's columns (BLOCK_PX columns of column_taps floats), then the row segment of a row block
    whose window leaves the input across (row_span floats)."""
    return 4 * (BLOCK_PX * column_taps(geom) + row_span(geom))


def row_gathered(geom: dict, ox: int, n_px: int) -> bool:
    """Whether a block of n_px pixels starting at output column ox lies in one output row (the condition in
    mcu_conv2d_f32_im2col for mcu_conv2d_f32_gather_row, or reading in place)."""
    return n_px == BLOCK_PX and ox + BLOCK_PX <= geom["w_out"]


def read_in_place(geom: dict, oy: int, ox: int) -> bool:
    """Whether the one-row block at output (oy, ox) reads its windows in place: a taps table, stride 1 across, all
    inside the input (the condition in mcu_conv2d_f32_im2col)."""
    iy0, ix0 = oy * geom["stride_h"] - geom["pad_t"], ox - geom["pad_l"]
    x_span = BLOCK_PX - 1 + (geom["k_w"] - 1) * geom["dil_w"]
    return (reads_in_place(geom) and geom["stride_w"] == 1 and ix0 >= 0 and ix0 + x_span < geom["w_in"]
            and iy0 >= 0 and iy0 + (geom["k_h"] - 1) * geom["dil_h"] < geom["h_in"])


def row_copies(geom: dict, ox: int) -> dict[str, int]:
    """How mcu_conv2d_f32_gather_row copies one input row of a row-gathered block at column ox: `segment` floats of
    the row first into the zero-padded row segment when the window leaves the row across; then a 3-wide window with
    dilation 1 as one `triple` (stride 1) or `strided_triple` (stride 2), else per tap a `quad` (stride 1, one 16-byte
    copy) or `strided` (four reads stride_w apart)."""
    span = row_span(geom)
    ix0 = ox * geom["stride_w"] - geom["pad_l"]
    lo, hi = max(0, -ix0), min(span, geom["w_in"] - ix0)
    inside = lo == 0 and hi == span
    three = geom["k_w"] == 3 and geom["dil_w"] == 1 and geom["stride_w"] in (1, 2)
    stride_1 = geom["stride_w"] == 1
    return {"segment": 0 if inside else max(0, hi - lo), "segment_rows": 0 if inside else 1,
            "triple": int(three and stride_1), "strided_triple": int(three and not stride_1),
            "quad": geom["k_w"] if stride_1 and not three else 0,
            "strided": geom["k_w"] if not stride_1 and not three else 0}


def im2col_terms(geom: dict, bounds: int) -> dict[str, int]:
    """Per image, per block of BLOCK_PX output pixels: nothing for a block read in place (its micro-kernel blocks
    counted apart: each tap's offset read and added, or each kernel row's where reads_rows_in_place); else the
    gather (row blocks: the row segment zeroed once where the window leaves the input across, per input channel and
    kernel row one row test and the copies row_copies names, rows outside zero-filled; other blocks: per pixel per
    input channel and kernel row a row test, per tap one float read inside the rows (checked across unless the
    window is inside across) or zero, the short block's missing pixels zero-filled tap by tap), then the micro-kernel
    blocks (gemm.block_terms; `bounds`: gemm.bound_tests)."""
    pixels = geom["h_out"] * geom["w_out"]
    k = column_taps(geom)
    rows_in = axis_valid_taps(geom["h_out"], geom["h_in"], geom["k_h"], geom["stride_h"], geom["dil_h"],
                              geom["pad_t"])
    cols_in = axis_valid_taps(geom["w_out"], geom["w_in"], geom["k_w"], geom["stride_w"], geom["dil_w"],
                              geom["pad_l"])
    names = ("in_place_blocks", "row_blocks", "row_block_rows", "row_segment_blocks", "row_segment_rows",
             "row_segment_floats", "row_triples", "row_strided_triples", "row_quad_taps", "row_strided_taps",
             "zero_rows", "pixel_columns", "pixel_rows", "pixel_taps_inside", "pixel_taps_checked", "zero_columns_taps")
    terms = dict.fromkeys(names, 0)
    for px in range(0, pixels, BLOCK_PX):
        n_px = min(BLOCK_PX, pixels - px)
        oy, ox = divmod(px, geom["w_out"])
        if row_gathered(geom, ox, n_px) and read_in_place(geom, oy, ox):
            terms["in_place_blocks"] += 1
            continue
        if row_gathered(geom, ox, n_px):
            rows = geom["c_in"] * rows_in[oy]
            terms["row_blocks"] += 1
            terms["row_block_rows"] += geom["c_in"] * geom["k_h"]
            terms["zero_rows"] += geom["c_in"] * (geom["k_h"] - rows_in[oy])
            copies = row_copies(geom, ox)
            terms["row_segment_blocks"] += copies["segment_rows"]
            terms["row_segment_rows"] += rows * copies["segment_rows"]
            terms["row_segment_floats"] += rows * copies["segment"]
            terms["row_triples"] += rows * copies["triple"]
            terms["row_strided_triples"] += rows * copies["strided_triple"]
            terms["row_quad_taps"] += rows * copies["quad"]
            terms["row_strided_taps"] += rows * copies["strided"]
            continue
        for q in range(px, px + n_px):
            qy, qx = divmod(q, geom["w_out"])
            taps = geom["c_in"] * rows_in[qy] * geom["k_w"]
            terms["pixel_columns"] += 1
            terms["pixel_rows"] += geom["c_in"] * geom["k_h"]
            terms["zero_rows"] += geom["c_in"] * (geom["k_h"] - rows_in[qy])
            terms["pixel_taps_inside" if cols_in[qx] == geom["k_w"] else "pixel_taps_checked"] += taps
        terms["zero_columns_taps"] += (BLOCK_PX - n_px) * k
    terms = {name: value * geom["n"] for name, value in terms.items()}
    oc_blocks = -(-geom["c_out"] // BLOCK_OC)
    in_place = terms["in_place_blocks"] * oc_blocks
    by_rows = reads_rows_in_place(geom)
    return {"calls": 1, **terms, **block_terms(geom["n"], pixels, geom["c_out"], k, bounds),
            "in_place_rows": in_place * (k // 3) if by_rows else 0,
            "in_place_quads": 0 if by_rows else in_place * (k // 4),
            "in_place_taps": 0 if by_rows else in_place * (k % 4)}
