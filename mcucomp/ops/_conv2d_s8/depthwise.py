"""conv2d_s8's depthwise path (runtime_c/kernels/conv2d_s8_depthwise.c): its walk over the output pixels and its
cost terms."""

from __future__ import annotations


#: Channels up to which the depthwise path runs pixel pairs (MCU_CONV2D_S8_DW_DEFER in conv2d_s8_dw.h).
DW_DEFER = 256


#: Strides along x that conv2d_s8_dw.h's assembly has slide bodies for (mcu_conv2d_s8_dw_slide_c; C % 4 == 0).
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
    """The depthwise loops (conv2d_s8_depthwise.c), as depthwise_schedule walks the pixels. On DSP cores with an FPU and
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
