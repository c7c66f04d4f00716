"""conv2d_f32's general path (runtime_c/kernels/conv2d_f32_general.c): its cost terms."""

from __future__ import annotations

from .._cost import Window


def general_terms(geom: dict, win: Window, k_d: int) -> dict[str, int]:
    """Per output the kernel planes and rows entered, the taps checked and the taps read."""
    planes = geom["n"] * geom["c_out"]
    cin_g = geom["c_in"] // geom["group"]
    return {"calls": 1, "outputs": planes * win.pixels, "channel_loops": planes * win.pixels * cin_g * k_d,
            "kernel_rows": planes * cin_g * win.depth_valid * geom["k_h"],
            "rows_entered": planes * cin_g * win.rows_valid,
            "row_taps": planes * cin_g * win.rows_valid * geom["k_w"],
            "valid_taps": planes * cin_g * win.taps_valid}
