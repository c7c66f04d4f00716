"""conv2d_f32's im2col path (runtime_c/kernels/conv2d_f32_im2col.c): its scratch and cost terms."""

from __future__ import annotations

from .._cost import axis_valid_taps
from .gemm import BLOCK_PX, block_terms


def column_taps(geom: dict) -> int:
    """Taps of one output's column: c_in * k_h * k_w."""
    return geom["c_in"] * geom["k_h"] * geom["k_w"]


def im2col_scratch(geom: dict) -> int:
    """Bytes of one block's columns: BLOCK_PX columns of column_taps floats."""
    return 4 * BLOCK_PX * column_taps(geom)


def row_gathered(geom: dict, ox: int, n_px: int) -> bool:
    """Whether a block of n_px pixels starting at output column ox takes mcu_conv2d_f32_gather_row: a full block in
    one output row (the condition in mcu_conv2d_f32_im2col)."""
    return n_px == BLOCK_PX and ox + BLOCK_PX <= geom["w_out"]


def row_tap_kinds(geom: dict, ox: int) -> dict[str, int]:
    """Per input row of a row-gathered block at column ox, its taps by how mcu_conv2d_f32_gather_row copies them:
    `quad` (stride 1 and the whole block's span inside the row: one 16-byte copy), `strided` (this tap's four inputs
    inside the row), `checked` (one by one, zeros outside)."""
    span = (BLOCK_PX - 1) * geom["stride_w"]
    ix0 = ox * geom["stride_w"] - geom["pad_l"]
    taps = [ix0 + kx * geom["dil_w"] for kx in range(geom["k_w"])]
    if geom["stride_w"] == 1 and ix0 >= 0 and taps[-1] + span < geom["w_in"]:
        return {"quad": geom["k_w"], "strided": 0, "checked": 0}
    inside = sum(ix >= 0 and ix + span < geom["w_in"] for ix in taps)
    return {"quad": 0, "strided": inside, "checked": geom["k_w"] - inside}


def im2col_terms(geom: dict) -> dict[str, int]:
    """Per image, per block of BLOCK_PX output pixels: the gather (row blocks: per input channel and kernel row one
    row test, per tap a quad copy, four strided reads or four checked ones, rows outside zero-filled; other blocks:
    per pixel per input channel and kernel row a row test, per tap one float read inside the rows (checked across
    unless the window is inside across) or zero, the short block's missing pixels zero-filled tap by tap), then the
    micro-kernel blocks (gemm.block_terms)."""
    pixels = geom["h_out"] * geom["w_out"]
    k = column_taps(geom)
    rows_in = axis_valid_taps(geom["h_out"], geom["h_in"], geom["k_h"], geom["stride_h"], geom["dil_h"],
                              geom["pad_t"])
    cols_in = axis_valid_taps(geom["w_out"], geom["w_in"], geom["k_w"], geom["stride_w"], geom["dil_w"],
                              geom["pad_l"])
    terms = {"row_blocks": 0, "row_block_rows": 0, "row_quad_taps": 0, "row_strided_taps": 0, "row_checked_taps": 0,
             "zero_rows": 0, "pixel_columns": 0, "pixel_rows": 0, "pixel_taps_inside": 0, "pixel_taps_checked": 0,
             "zero_columns_taps": 0}
    for px in range(0, pixels, BLOCK_PX):
        n_px = min(BLOCK_PX, pixels - px)
        oy, ox = divmod(px, geom["w_out"])
        if row_gathered(geom, ox, n_px):
            rows = geom["c_in"] * rows_in[oy]
            terms["row_blocks"] += 1
            terms["row_block_rows"] += geom["c_in"] * geom["k_h"]
            terms["zero_rows"] += geom["c_in"] * (geom["k_h"] - rows_in[oy])
            for kind, count in row_tap_kinds(geom, ox).items():
                terms[f"row_{kind}_taps"] += rows * count
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
    return {"calls": 1, **terms, **block_terms(geom["n"], pixels, geom["c_out"], k)}
