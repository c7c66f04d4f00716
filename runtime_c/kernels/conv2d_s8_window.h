#ifndef MCU_CONV2D_S8_WINDOW_H
#define MCU_CONV2D_S8_WINDOW_H
#include "conv2d_s8.h"

/* Output pixels' windows and pixel pairs, shared by the paths that locate windows. */

/** Index of output pixel q's first input pixel (n, oy * stride_h - pad_t, ox * stride_w - pad_l), row-major over
 * N, H, W; may lie in the padding. Sets *oy and *ox. */
MCU_CONV2D_S8_SHARED
static int32_t mcu_conv2d_s8_window_start(const mcu_conv_geom *g, int32_t q, int32_t *iy, int32_t *ix)
{
    const int32_t plane = g->h_out * g->w_out, n = q / plane, r = q % plane;
    *iy = (r / g->w_out) * g->stride_h - g->pad_t;
    *ix = (r % g->w_out) * g->stride_w - g->pad_l;
    return (n * g->h_in + *iy) * g->w_in + *ix;
}

/* The output row of the last pixel mcu_conv2d_s8_window_row looked up: its first pixel q and window start (iy,
 * start of ox = 0); q = -1 before the first. */
typedef struct {
    int32_t q, iy, start;
} mcu_conv2d_s8_row;

/** mcu_conv2d_s8_window_start; on cores without a divide instruction (where a division is a library call) the
 * divisions only when q leaves the row cached in *row. */
MCU_CONV2D_S8_SHARED
static int32_t mcu_conv2d_s8_window_row(const mcu_conv_geom *g, mcu_conv2d_s8_row *row, int32_t q, int32_t *iy,
                                        int32_t *ix)
{
#if defined(__ARM_FEATURE_IDIV) || !defined(__arm__) /* a divide instruction: the lookup costs more than it saves */
    (void)row;
    return mcu_conv2d_s8_window_start(g, q, iy, ix);
#else
    int32_t ox = q - row->q;
    if (row->q < 0 || ox < 0 || ox >= g->w_out) {
        row->q = q - q % g->w_out;
        row->start = mcu_conv2d_s8_window_start(g, row->q, &row->iy, ix);
        ox = q - row->q;
    }
    *iy = row->iy;
    *ix = ox * g->stride_w - g->pad_l;
    return row->start + ox * g->stride_w;
#endif
}

/* Pixel pair number i of `pixels` in run order: (0, 1), (2, 3), .. up or (P-2, P-1), (P-4, P-3), .. down; a lone
 * last pair has q0 == q1 (mcucomp/ops/_overlap.py pixel_pairs). */
MCU_CONV2D_S8_SHARED
static void mcu_conv2d_s8_pair(int32_t i, int32_t pixels, int32_t down, int32_t *q0, int32_t *q1)
{
    const int32_t a = 2 * i, b = a + 1 < pixels ? a + 1 : a;
    *q0 = down ? pixels - 1 - b : a;
    *q1 = down ? pixels - 1 - a : b;
}

#endif
