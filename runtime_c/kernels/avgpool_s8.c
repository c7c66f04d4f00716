#include "avgpool_s8.h"

/* The pooled code of output (oy, ox) of one plane: xc points at the plane's first element, `step` elements apart
 * from one pixel to the next (1 channels-first, c_in channels-last). Reads only that window's taps, row by row. The
 * divisor counts are separable: taps inside the input = rows inside x columns inside, and likewise inside the
 * padded input. */
static inline int8_t mcu_avgpool_s8_window(const mcu_avgpool_s8_params *p, const int8_t *xc, size_t step, int32_t oy,
                                           int32_t ox)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t y0 = oy * g->stride_h - g->pad_t, x0 = ox * g->stride_w - g->pad_l;
    int32_t isum = 0, rows = 0, cols = 0, rows_padded = 0, cols_padded = 0, count, ky, kx;
    float fsum = 0.0f;
    for (kx = 0; kx < g->k_w; ++kx) {
        const int32_t ix = x0 + kx * g->dil_w;
        cols += (ix >= 0 && ix < g->w_in);
        cols_padded += (ix < g->w_in + p->pad_r);
    }
    for (ky = 0; ky < g->k_h; ++ky) {
        const int32_t iy = y0 + ky * g->dil_h;
        const int8_t *row;
        rows_padded += (iy < g->h_in + p->pad_b);
        if (iy < 0 || iy >= g->h_in) {
            continue;
        }
        row = xc + (size_t)iy * g->w_in * step;
        ++rows;
        for (kx = 0; kx < g->k_w; ++kx) {
            const int32_t ix = x0 + kx * g->dil_w;
            if (ix >= 0 && ix < g->w_in) {
                const int32_t q = (int32_t)row[(size_t)ix * step] - p->x_zp;
                isum += q;
                if (p->mode == MCU_AVGPOOL_S8_FLOAT) {
                    fsum = fsum + (float)q * p->x_scale;
                }
            }
        }
    }
    count = p->count_mode == MCU_AVGPOOL_S8_COUNT_KERNEL ? g->k_h * g->k_w
            : p->count_mode == MCU_AVGPOOL_S8_COUNT_PADDED ? rows_padded * cols_padded
                                                           : rows * cols;
    if (p->mode != MCU_AVGPOOL_S8_FLOAT) {
        return (int8_t)mcu_requant_apply(&p->rq, isum, count); /* the entry of this divisor (WINDOW_INT) */
    } else {
        const float v = mcu_clampf((fsum / (float)count) / p->y_scale, (float)(p->rq.qmin - p->rq.zp),
                                   (float)(p->rq.qmax - p->rq.zp));
        return (int8_t)(mcu_round_even(v) + p->rq.zp);
    }
}

void mcu_avgpool_s8(const mcu_avgpool_s8_params *p, const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const size_t plane_in = (size_t)g->h_in * g->w_in, plane_out = (size_t)g->h_out * g->w_out;
    int32_t n, c, oy, ox;
    if (p->channels_last) {
        /* N, H, W, C: pixel by pixel, every channel of a pixel before the next (the overlap margin relies on it) */
        for (n = 0; n < g->n; ++n) {
            const int8_t *xn = x + (size_t)n * plane_in * g->c_in;
            for (oy = 0; oy < g->h_out; ++oy) {
                for (ox = 0; ox < g->w_out; ++ox) {
                    for (c = 0; c < g->c_in; ++c) {
                        *y++ = mcu_avgpool_s8_window(p, xn + c, (size_t)g->c_in, oy, ox);
                    }
                }
            }
        }
        return;
    }
    for (n = 0; n < g->n; ++n) {
        for (c = 0; c < g->c_in; ++c) {
            const int8_t *xc = x + ((size_t)n * g->c_in + c) * plane_in;
            int8_t *yc = y + ((size_t)n * g->c_in + c) * plane_out;
            for (oy = 0; oy < g->h_out; ++oy) {
                for (ox = 0; ox < g->w_out; ++ox) {
                    yc[oy * g->w_out + ox] = mcu_avgpool_s8_window(p, xc, 1, oy, ox);
                }
            }
        }
    }
}
