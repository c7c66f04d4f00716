#include "conv2d_s8.h"

/* The fast paths use acc = kbias[oc] + sum x * (w - w_zp): the x_zp term of every tap is folded into kbias by the
 * compiler, which is exact in int32 and so gives the general loop's accumulator; taps in the padding would hold
 * x_zp, so only windows entirely inside the input take it. sum x * w_zp is done once per output when w_zp != 0. */

/* Pointwise path: pixel p's inputs go to `col` before any y[oc][p] is written, and y[oc][p] is the only output
 * written at pixel p, so y may sit exactly on x (it overwrites x[oc][p], already copied). */
static void mcu_conv2d_s8_pointwise(const mcu_conv2d_s8_params *p, const int8_t *x, const int8_t *w, int8_t *y,
                                    int8_t *col)
{
    const int32_t pixels = p->g.h_out * p->g.w_out;
    const int32_t c_in = p->g.c_in;
    int32_t px, oc, ic;
    for (px = 0; px < pixels; ++px) {
        int32_t xsum = 0;
        for (ic = 0; ic < c_in; ++ic) {
            col[ic] = x[(size_t)ic * pixels + px];
            xsum += col[ic];
        }
        for (oc = 0; oc < p->g.c_out; ++oc) {
            const int8_t *wk = w + (size_t)oc * c_in;
            int32_t acc = p->kbias[oc] - (p->w_zp ? p->w_zp[oc] * xsum : 0);
            for (ic = 0; ic < c_in; ++ic) {
                acc += (int32_t)col[ic] * wk[ic];
            }
            y[(size_t)oc * pixels + px] = (int8_t)mcu_requant_apply(&p->rq, acc, oc);
        }
    }
}

/* First and one-past-last output coordinate whose whole window lies inside an input of length len. */
static void mcu_conv2d_s8_inside(int32_t out_len, int32_t len, int32_t k, int32_t stride, int32_t dil, int32_t pad,
                                 int32_t *lo, int32_t *hi)
{
    const int32_t last = len - 1 - (k - 1) * dil + pad; /* window start + pad must be in [pad, last] */
    *lo = (pad + stride - 1) / stride;
    *hi = last < 0 ? 0 : last / stride + 1;
    if (*hi > out_len) {
        *hi = out_len;
    }
    if (*lo > *hi) {
        *lo = *hi;
    }
}

/* Depthwise path (multiplier 1): plane by plane, outputs in row-major order, each written after its window is read
 * (the order mcucomp/ops/_overlap.py window_margin relies on). Windows inside the input run without bounds checks. */
static void mcu_conv2d_s8_depthwise(const mcu_conv2d_s8_params *p, const int8_t *x, const int8_t *w,
                                    const int32_t *bias, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t khw = g->k_h * g->k_w;
    int32_t n, c, oy, ox, ky, kx, oy_lo, oy_hi, ox_lo, ox_hi;
    mcu_conv2d_s8_inside(g->h_out, g->h_in, g->k_h, g->stride_h, g->dil_h, g->pad_t, &oy_lo, &oy_hi);
    mcu_conv2d_s8_inside(g->w_out, g->w_in, g->k_w, g->stride_w, g->dil_w, g->pad_l, &ox_lo, &ox_hi);
    for (n = 0; n < g->n; ++n) {
        for (c = 0; c < g->c_in; ++c) {
            const int8_t *xc = x + ((size_t)n * g->c_in + c) * g->h_in * g->w_in;
            const int8_t *wk = w + (size_t)c * khw;
            const int32_t wzp = p->w_zp ? p->w_zp[c] : 0;
            int8_t *yc = y + ((size_t)n * g->c_out + c) * g->h_out * g->w_out;
            for (oy = 0; oy < g->h_out; ++oy) {
                const int32_t iy0 = oy * g->stride_h - g->pad_t;
                const int32_t row_inside = oy >= oy_lo && oy < oy_hi;
                for (ox = 0; ox < g->w_out; ++ox) {
                    const int32_t ix0 = ox * g->stride_w - g->pad_l;
                    int32_t acc;
                    if (row_inside && ox >= ox_lo && ox < ox_hi) {
                        int32_t xsum = 0;
                        acc = p->kbias[c];
                        for (ky = 0; ky < g->k_h; ++ky) {
                            const int8_t *xr = xc + (size_t)(iy0 + ky * g->dil_h) * g->w_in + ix0;
                            const int8_t *wr = wk + ky * g->k_w;
                            for (kx = 0; kx < g->k_w; ++kx) {
                                acc += (int32_t)xr[kx * g->dil_w] * wr[kx];
                                xsum += xr[kx * g->dil_w];
                            }
                        }
                        acc -= wzp * xsum;
                    } else {
                        acc = bias ? bias[c] : 0;
                        for (ky = 0; ky < g->k_h; ++ky) {
                            const int32_t iy = iy0 + ky * g->dil_h;
                            for (kx = 0; kx < g->k_w; ++kx) {
                                const int32_t ix = ix0 + kx * g->dil_w;
                                if (iy >= 0 && iy < g->h_in && ix >= 0 && ix < g->w_in) {
                                    acc += ((int32_t)xc[iy * g->w_in + ix] - p->x_zp) *
                                           ((int32_t)wk[ky * g->k_w + kx] - wzp);
                                }
                            }
                        }
                    }
                    yc[oy * g->w_out + ox] = (int8_t)mcu_requant_apply(&p->rq, acc, c);
                }
            }
        }
    }
}

/* Integer accumulation is exact, so the loop order is free; padded taps hold x_zp and contribute nothing. */
void mcu_conv2d_s8(const mcu_conv2d_s8_params *p, const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                   void *scratch)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group;
    const int32_t cout_g = g->c_out / g->group;
    int32_t n, oc, oy, ox, ic, ky, kx;
    if (scratch) {
        mcu_conv2d_s8_pointwise(p, x, w, y, (int8_t *)scratch);
        return;
    }
    if (p->path == MCU_CONV2D_S8_DEPTHWISE) {
        mcu_conv2d_s8_depthwise(p, x, w, bias, y);
        return;
    }
    for (n = 0; n < g->n; ++n) {
        for (oc = 0; oc < g->c_out; ++oc) {
            const int32_t c0 = (oc / cout_g) * cin_g;
            const int32_t wzp = p->w_zp ? p->w_zp[oc] : 0;
            const int8_t *wk = w + (size_t)oc * cin_g * g->k_h * g->k_w;
            for (oy = 0; oy < g->h_out; ++oy) {
                for (ox = 0; ox < g->w_out; ++ox) {
                    int32_t acc = bias ? bias[oc] : 0;
                    for (ic = 0; ic < cin_g; ++ic) {
                        const int8_t *xc = x + ((size_t)n * g->c_in + c0 + ic) * g->h_in * g->w_in;
                        for (ky = 0; ky < g->k_h; ++ky) {
                            const int32_t iy = oy * g->stride_h - g->pad_t + ky * g->dil_h;
                            if (iy < 0 || iy >= g->h_in) {
                                continue;
                            }
                            for (kx = 0; kx < g->k_w; ++kx) {
                                const int32_t ix = ox * g->stride_w - g->pad_l + kx * g->dil_w;
                                if (ix >= 0 && ix < g->w_in) {
                                    acc += ((int32_t)xc[iy * g->w_in + ix] - p->x_zp) *
                                           ((int32_t)wk[(ic * g->k_h + ky) * g->k_w + kx] - wzp);
                                }
                            }
                        }
                    }
                    y[(((size_t)n * g->c_out + oc) * g->h_out + oy) * g->w_out + ox] =
                        (int8_t)mcu_requant_apply(&p->rq, acc, oc);
                }
            }
        }
    }
}
