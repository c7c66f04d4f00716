#ifndef MCU_CONV2D_S8_COLUMNS_H
#define MCU_CONV2D_S8_COLUMNS_H
#include "conv2d_s8_gemm.h"
#include "conv2d_s8_window.h"

/* Gathered windows (im2col) and their GEMM, shared by the im2col, local and few-channels paths. */

/** Copy n bytes of a window: runs under 16 bytes (first convs over a few channels) inline, word by word on DSP
 * cores (LDR and STR at any alignment), the others by memcpy (a call costs more than such a run). */
static MCU_INLINE void mcu_conv2d_s8_copy(int8_t *dst, const int8_t *src, size_t n)
{
    if (n >= 16) {
        memcpy(dst, src, n);
        return;
    }
#if defined(__ARM_FEATURE_DSP)
    for (; n >= 4; n -= 4, dst += 4, src += 4) {
        uint32_t v;
        memcpy(&v, src, 4);
        memcpy(dst, &v, 4);
    }
#endif
    for (; n > 0; --n) {
        *dst++ = *src++;
    }
}

/** Fill n bytes of a window with v (mcu_conv2d_s8_copy's split). */
static MCU_INLINE void mcu_conv2d_s8_fill(int8_t *dst, int32_t v, size_t n)
{
    if (n >= 16) {
        memset(dst, (int8_t)v, n);
        return;
    }
    for (; n > 0; --n) {
        *dst++ = (int8_t)v;
    }
}

/* Output pixel q's window in kernel-row, kernel-column, channel order (k_h * k_w * c_in bytes), x_zp in the
 * padding; whole kernel rows in one copy when they are inside the input and undilated. */
MCU_CONV2D_S8_SHARED
static void mcu_conv2d_s8_gather(const mcu_conv2d_s8_params *p, const int8_t *x, mcu_conv2d_s8_row *row, int32_t q,
                                 int8_t *col)
{
    const mcu_conv_geom *g = &p->g;
    const size_t c = (size_t)g->c_in;
    int32_t iy0, ix0, ky, kx;
    const int32_t start = mcu_conv2d_s8_window_row(g, row, q, &iy0, &ix0);
    const int8_t *xw = x + (size_t)(start - iy0 * g->w_in - ix0) * c; /* the image */
    const int32_t row_inside = ix0 >= 0 && ix0 + (g->k_w - 1) * g->dil_w < g->w_in;
    if (row_inside && g->dil_w == 1 && iy0 >= 0 && iy0 + (g->k_h - 1) * g->dil_h < g->h_in) {
        /* inside the input: one run per kernel row, no checks */
        const size_t run = (size_t)g->k_w * c, step = (size_t)g->dil_h * g->w_in * c;
        const int32_t rows = g->k_h;
        const int8_t *xr = xw + ((size_t)iy0 * g->w_in + ix0) * c;
        for (ky = 0; ky < rows; ++ky, col += run, xr += step) {
            mcu_conv2d_s8_copy(col, xr, run);
        }
        return;
    }
    /* undilated: the kernel columns lo .. hi - 1 lie inside the input, one run a kernel row */
    const int32_t lo = ix0 >= 0 ? 0 : -ix0 < g->k_w ? -ix0 : g->k_w;
    const int32_t right = g->w_in - ix0 < g->k_w ? g->w_in - ix0 : g->k_w, hi = right > lo ? right : lo;
    for (ky = 0; ky < g->k_h; ++ky, col += g->k_w * c) {
        const int32_t iy = iy0 + ky * g->dil_h;
        const int8_t *xr = xw + ((size_t)iy * g->w_in + ix0) * c;
        if (iy < 0 || iy >= g->h_in) {
            mcu_conv2d_s8_fill(col, p->x_zp, g->k_w * c);
        } else if (g->dil_w == 1) {
            mcu_conv2d_s8_fill(col, p->x_zp, (size_t)lo * c);
            mcu_conv2d_s8_copy(col + lo * c, xr + (size_t)lo * c, (size_t)(hi - lo) * c);
            mcu_conv2d_s8_fill(col + hi * c, p->x_zp, (size_t)(g->k_w - hi) * c);
        } else {
            for (kx = 0; kx < g->k_w; ++kx) {
                const int32_t ix = ix0 + kx * g->dil_w;
                if (ix >= 0 && ix < g->w_in) {
                    mcu_conv2d_s8_copy(col + kx * c, xr + (size_t)kx * g->dil_w * c, c);
                } else {
                    mcu_conv2d_s8_fill(col + kx * c, p->x_zp, c);
                }
            }
        }
    }
}

/* Taps of a gathered window: the kernel volume rounded up to a multiple of 4 (mcucomp/ops/conv2d_s8.py
 * column_taps; the weight rows are padded with zeros to match). */
#define MCU_CONV2D_S8_COLUMN(taps) (((taps) + 3) & ~3)

/* im2col path (group 1): the windows of two output pixels go to `col`, then the GEMM block; pixel pairs in the
 * order p->down says (mcucomp/ops/_overlap.py pixelwise_nhwc). */
MCU_CONV2D_S8_SHARED
static void mcu_conv2d_s8_im2col_pairs(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, int8_t *col,
                                       int32_t *rqt_store)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t taps = g->c_in * g->k_h * g->k_w, k = MCU_CONV2D_S8_COLUMN(taps);
    const int32_t pixels = g->n * g->h_out * g->w_out;
    const int32_t mode = mcu_conv2d_s8_rq_mode(p);
    mcu_conv2d_s8_row row = {-1, 0, 0};
    int32_t i, q0, q1;
    MCU_CONV2D_S8_RQT(p, (pixels + 1) / 2, rqt_store, rqt);
    /* the extra taps: zero bytes against zero weights (the gathers write the first `taps` bytes of a window only) */
    mcu_conv2d_s8_fill(col + taps, 0, (size_t)(k - taps));
    mcu_conv2d_s8_fill(col + k + taps, 0, (size_t)(k - taps));
    for (i = 0; 2 * i < pixels; ++i) {
        mcu_conv2d_s8_pair(i, pixels, p->down, &q0, &q1);
        mcu_conv2d_s8_gather(p, x, &row, q0, col);
        mcu_conv2d_s8_gather(p, x, &row, q1, col + k);
        mcu_conv2d_s8_gemm(p, mode, col, col + k, k, y + (size_t)q0 * g->c_out, y + (size_t)q1 * g->c_out, rqt);
    }
}

/** The local path's pixel pairs: mcu_conv2d_s8_im2col_pairs with both windows on the stack (small windows, such as a
 * first conv over one input channel, where the direct path's span checks per kernel row dominate); on ARMv6-M this
 * frame also holds the requantization table's storage. */
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_local_pairs(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y)
{
    int8_t col[MCU_CONV2D_S8_LOCAL_COL];
    MCU_CONV2D_S8_RQT_STORE(store);
    mcu_conv2d_s8_im2col_pairs(p, x, y, col, store);
}

#endif
