"""conv2d_s8's im2col gather (runtime_c/kernels/conv2d_s8_columns.h; the im2col and local paths): its kernel rows'
cost terms."""

from __future__ import annotations


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
