#include "conv2d_s8.h"
#include "conv2d_s8_dw.h"

/* Channels-last. Every path computes acc = kbias[oc] + sum_k x'[k] * w[k] - w_zp[oc] * sum_k x'[k] over the whole
 * window, where x' is the input inside it and x_zp on the taps in the padding: kbias = bias - x_zp * sum_k
 * (w[k] - w_zp) is folded by the compiler, so this equals bias + sum over the taps inside of (x - x_zp)(w - w_zp),
 * the definition (mcucomp/intref/conv2d_s8.py). Integer sums are exact: the order of the terms is free, so the SIMD
 * loops below equal the portable ones bit for bit. */

/* The 2x2 GEMM block: two weight rows (output channels) against two columns (pixels), four int32 dot products of
 * length k. With the DSP extension, SXTB16 splits four int8 into lanes (0, 2) and (1, 3) of both the column and the
 * weight word, so SMLAD does two MACs per instruction without reordering the weights. */
static inline void mcu_conv2d_s8_dot2x2(const int8_t *w0, const int8_t *w1, const int8_t *c0, const int8_t *c1,
                                        int32_t k, int32_t acc[4])
{
    int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3];
    int32_t i = 0;
#if defined(__ARM_FEATURE_DSP)
    for (; i + 4 <= k; i += 4) {
        const int32_t x0 = mcu_conv2d_s8_load4(c0 + i), x1 = mcu_conv2d_s8_load4(c1 + i);
        const int32_t x0e = __sxtb16(x0), x0o = mcu_conv2d_s8_odd(x0);
        const int32_t x1e = __sxtb16(x1), x1o = mcu_conv2d_s8_odd(x1);
        int32_t wv = mcu_conv2d_s8_load4(w0 + i);
        int32_t we = __sxtb16(wv), wo = mcu_conv2d_s8_odd(wv);
        a00 = __smlad(x0e, we, __smlad(x0o, wo, a00));
        a01 = __smlad(x1e, we, __smlad(x1o, wo, a01));
        wv = mcu_conv2d_s8_load4(w1 + i);
        we = __sxtb16(wv);
        wo = mcu_conv2d_s8_odd(wv);
        a10 = __smlad(x0e, we, __smlad(x0o, wo, a10));
        a11 = __smlad(x1e, we, __smlad(x1o, wo, a11));
    }
#else
    /* ARMv6-M (M0+, two-stage pipeline): LDRSB only takes a register offset, so one index serves the three rows;
     * one weight row at a time keeps the live values in the eight low registers; pairs of taps counted down from
     * the end save the compare. Tap 0 of an odd k is left to the tail loop below. */
    for (i = k - 2; i >= (k & 1); i -= 2) {
        const int32_t wa = w0[i], wb = w0[i + 1];
        a00 += c0[i] * wa + c0[i + 1] * wb;
        a01 += c1[i] * wa + c1[i + 1] * wb;
    }
    for (i = k - 2; i >= (k & 1); i -= 2) {
        const int32_t wa = w1[i], wb = w1[i + 1];
        a10 += c0[i] * wa + c0[i + 1] * wb;
        a11 += c1[i] * wa + c1[i + 1] * wb;
    }
    i = 0;
    k &= 1;
#endif
    for (; i < k; ++i) {
        const int32_t x0 = c0[i], x1 = c1[i];
        a00 += x0 * w0[i];
        a01 += x1 * w0[i];
        a10 += x0 * w1[i];
        a11 += x1 * w1[i];
    }
    acc[0] = a00;
    acc[1] = a01;
    acc[2] = a10;
    acc[3] = a11;
}

/* Columns c0, c1 of two pixels (k taps each) against every weight row; y0, y1: the two pixels' outputs (c_out
 * channels each). A lone last output channel runs as its own pair and drops the duplicate; so does a lone pixel
 * (c0 == c1, y0 == y1). */
static void mcu_conv2d_s8_gemm(const mcu_conv2d_s8_params *p, int32_t plain, const int8_t *c0, const int8_t *c1,
                               int32_t k, int8_t *y0, int8_t *y1)
{
    const mcu_requant rq = p->rq; /* a local copy: the int8 stores below could alias p, which stops hoisting */
    const int32_t c_out = p->g.c_out;
    int32_t s0 = 0, s1 = 0, oc, i;
    if (p->w_zp) {
        for (i = 0; i < k; ++i) {
            s0 += c0[i];
            s1 += c1[i];
        }
    }
    for (oc = 0; oc < c_out; oc += 2) {
        const int32_t oc1 = oc + 1 < c_out ? oc + 1 : oc;
        const int32_t z0 = p->w_zp ? p->w_zp[oc] : 0, z1 = p->w_zp ? p->w_zp[oc1] : 0;
        int32_t acc[4];
        acc[0] = p->kbias[oc] - z0 * s0;
        acc[1] = p->kbias[oc] - z0 * s1;
        acc[2] = p->kbias[oc1] - z1 * s0;
        acc[3] = p->kbias[oc1] - z1 * s1;
        mcu_conv2d_s8_dot2x2(p->w + (size_t)oc * k, p->w + (size_t)oc1 * k, c0, c1, k, acc);
        y0[oc] = mcu_conv2d_s8_requant(&rq, plain, acc[0], oc);
        y1[oc] = mcu_conv2d_s8_requant(&rq, plain, acc[1], oc);
        y0[oc1] = mcu_conv2d_s8_requant(&rq, plain, acc[2], oc1);
        y1[oc1] = mcu_conv2d_s8_requant(&rq, plain, acc[3], oc1);
    }
}

/** Index of output pixel q's first input pixel (n, oy * stride_h - pad_t, ox * stride_w - pad_l), row-major over
 * N, H, W; may lie in the padding. Sets *oy and *ox. */
static int32_t mcu_conv2d_s8_window_start(const mcu_conv_geom *g, int32_t q, int32_t *iy, int32_t *ix)
{
    const int32_t plane = g->h_out * g->w_out, n = q / plane, r = q % plane;
    *iy = (r / g->w_out) * g->stride_h - g->pad_t;
    *ix = (r % g->w_out) * g->stride_w - g->pad_l;
    return (n * g->h_in + *iy) * g->w_in + *ix;
}

/* Pixel pair number i of `pixels` in run order: (0, 1), (2, 3), .. up or (P-2, P-1), (P-4, P-3), .. down; a lone
 * last pair has q0 == q1 (mcucomp/ops/_overlap.py pixel_pairs). */
static void mcu_conv2d_s8_pair(int32_t i, int32_t pixels, int32_t down, int32_t *q0, int32_t *q1)
{
    const int32_t a = 2 * i, b = a + 1 < pixels ? a + 1 : a;
    *q0 = down ? pixels - 1 - b : a;
    *q1 = down ? pixels - 1 - a : b;
}

/* Pointwise path: the GEMM reads each pixel's c_in inputs in place (contiguous channels-last), pixel pairs in the
 * order p->down says (mcucomp/ops/_overlap.py pointwise_nhwc). */
static void mcu_conv2d_s8_pointwise(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t c_in = g->c_in, c_out = g->c_out, pixels = g->n * g->h_out * g->w_out;
    const int32_t plain = mcu_requant_is_plain(&p->rq, c_out);
    int32_t i, q0, q1, iy, ix;
    for (i = 0; 2 * i < pixels; ++i) {
        mcu_conv2d_s8_pair(i, pixels, p->down, &q0, &q1);
        mcu_conv2d_s8_gemm(p, plain, x + (size_t)mcu_conv2d_s8_window_start(g, q0, &iy, &ix) * c_in,
                           x + (size_t)mcu_conv2d_s8_window_start(g, q1, &iy, &ix) * c_in, c_in,
                           y + (size_t)q0 * c_out, y + (size_t)q1 * c_out);
    }
}

/* Output pixel q's window in kernel-row, kernel-column, channel order (k_h * k_w * c_in bytes), x_zp in the
 * padding; whole kernel rows in one copy when they are inside the input and undilated. */
static void mcu_conv2d_s8_gather(const mcu_conv2d_s8_params *p, const int8_t *x, int32_t q, int8_t *col)
{
    const mcu_conv_geom *g = &p->g;
    const size_t c = (size_t)g->c_in;
    int32_t iy0, ix0, ky, kx;
    const int32_t start = mcu_conv2d_s8_window_start(g, q, &iy0, &ix0);
    const int8_t *xw = x + (size_t)(start - iy0 * g->w_in - ix0) * c; /* the image */
    const int32_t row_inside = ix0 >= 0 && ix0 + (g->k_w - 1) * g->dil_w < g->w_in;
    for (ky = 0; ky < g->k_h; ++ky, col += g->k_w * c) {
        const int32_t iy = iy0 + ky * g->dil_h;
        const int8_t *xr = xw + ((size_t)iy * g->w_in + ix0) * c;
        if (iy < 0 || iy >= g->h_in) {
            memset(col, (int8_t)p->x_zp, g->k_w * c);
        } else if (row_inside && g->dil_w == 1) {
            memcpy(col, xr, g->k_w * c);
        } else {
            for (kx = 0; kx < g->k_w; ++kx) {
                const int32_t ix = ix0 + kx * g->dil_w;
                if (ix >= 0 && ix < g->w_in) {
                    memcpy(col + kx * c, xr + (size_t)kx * g->dil_w * c, c);
                } else {
                    memset(col + kx * c, (int8_t)p->x_zp, c);
                }
            }
        }
    }
}

/* im2col path (group 1): the windows of two output pixels go to `col`, then the GEMM block; pixel pairs in the
 * order p->down says (mcucomp/ops/_overlap.py pixelwise_nhwc). */
static void mcu_conv2d_s8_im2col(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, int8_t *col)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t k = g->c_in * g->k_h * g->k_w, pixels = g->n * g->h_out * g->w_out;
    const int32_t plain = mcu_requant_is_plain(&p->rq, g->c_out);
    int32_t i, q0, q1;
    for (i = 0; 2 * i < pixels; ++i) {
        mcu_conv2d_s8_pair(i, pixels, p->down, &q0, &q1);
        mcu_conv2d_s8_gather(p, x, q0, col);
        mcu_conv2d_s8_gather(p, x, q1, col + k);
        mcu_conv2d_s8_gemm(p, plain, col, col + k, k, y + (size_t)q0 * g->c_out, y + (size_t)q1 * g->c_out);
    }
}

/* Local path: the im2col path with both windows gathered to the stack instead of an arena scratch (small windows,
such as a first conv over one input channel, where the direct path's span checks per kernel row dominate). */
static void mcu_conv2d_s8_local(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y)
{
    int8_t col[MCU_CONV2D_S8_LOCAL_COL];
    mcu_conv2d_s8_im2col(p, x, y, col);
}

/* One output pixel of the general path, channel by channel, taps outside the input read as x_zp. xw: the image;
 * weights output channel by output channel, each as kernel row, kernel column, input channel of its group (group
 * g reads input channels g * cin_g ..). */
static void mcu_conv2d_s8_checked(const mcu_conv2d_s8_params *p, const mcu_requant *rq, int32_t plain,
                                  const int8_t *xw, int32_t iy0, int32_t ix0, int8_t *yp)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group, cout_g = g->c_out / g->group;
    const int32_t k = cin_g * g->k_h * g->k_w;
    int32_t oc, ky, kx, ic;
    for (oc = 0; oc < g->c_out; ++oc) {
        const int8_t *wk = p->w + (size_t)oc * k;
        const int32_t c0 = (oc / cout_g) * cin_g;
        int32_t acc = p->kbias[oc], xsum = 0;
        for (ky = 0; ky < g->k_h; ++ky) {
            const int32_t iy = iy0 + ky * g->dil_h;
            for (kx = 0; kx < g->k_w; ++kx, wk += cin_g) {
                const int32_t ix = ix0 + kx * g->dil_w;
                if (iy >= 0 && iy < g->h_in && ix >= 0 && ix < g->w_in) {
                    const int8_t *xt = xw + ((size_t)iy * g->w_in + ix) * g->c_in + c0;
                    for (ic = 0; ic < cin_g; ++ic) {
                        acc += (int32_t)xt[ic] * wk[ic];
                        xsum += xt[ic];
                    }
                } else {
                    for (ic = 0; ic < cin_g; ++ic) {
                        acc += p->x_zp * wk[ic];
                    }
                    xsum += p->x_zp * cin_g;
                }
            }
        }
        if (p->w_zp) {
            acc -= p->w_zp[oc] * xsum;
        }
        yp[oc] = mcu_conv2d_s8_requant(rq, plain, acc, oc);
    }
}

/* Output pixel q's window for the direct path: its image, first tap (in the padding when negative) and the
 * kernel columns kx_lo .. kx_hi - 1 that fall inside the input. */
typedef struct {
    const int8_t *image;
    int32_t iy0, ix0, kx_lo, kx_hi;
} mcu_conv2d_s8_window;

/** Fill *win for output pixel q. */
static void mcu_conv2d_s8_window_of(const mcu_conv_geom *g, const int8_t *x, int32_t q, mcu_conv2d_s8_window *win)
{
    const int32_t start = mcu_conv2d_s8_window_start(g, q, &win->iy0, &win->ix0);
    win->image = x + (size_t)(start - win->iy0 * g->w_in - win->ix0) * g->c_in;
    mcu_conv2d_s8_valid_taps(win->ix0, g->w_in, g->k_w, g->dil_w, &win->kx_lo, &win->kx_hi);
}

/* acc (2x2 block of output channels w0, w1 and pixels a, b) += one kernel row, split where either window enters or
 * leaves the input (at most five spans): taps in the padding read p->zrow (x_zp, k_w * c_in bytes), a span inside
 * is one dot when undilated. */
static void mcu_conv2d_s8_direct_row(const mcu_conv2d_s8_params *p, const int8_t *w0, const int8_t *w1,
                                     const mcu_conv2d_s8_window *a, const mcu_conv2d_s8_window *b, int32_t ky,
                                     int32_t acc[4])
{
    const mcu_conv_geom *g = &p->g;
    const int32_t c = g->c_in, ya = a->iy0 + ky * g->dil_h, yb = b->iy0 + ky * g->dil_h;
    const int32_t row_a = ya >= 0 && ya < g->h_in, row_b = yb >= 0 && yb < g->h_in;
    const int32_t lo_a = row_a ? a->kx_lo : g->k_w, hi_a = row_a ? a->kx_hi : g->k_w;
    const int32_t lo_b = row_b ? b->kx_lo : g->k_w, hi_b = row_b ? b->kx_hi : g->k_w;
    int32_t from = 0, to, kx;
    for (; from < g->k_w; from = to) {
        const int32_t in_a = from >= lo_a && from < hi_a, in_b = from >= lo_b && from < hi_b;
        to = g->k_w;
        to = lo_a > from && lo_a < to ? lo_a : to;
        to = hi_a > from && hi_a < to ? hi_a : to;
        to = lo_b > from && lo_b < to ? lo_b : to;
        to = hi_b > from && hi_b < to ? hi_b : to;
        if (g->dil_w == 1 || (!in_a && !in_b)) {
            mcu_conv2d_s8_dot2x2(w0 + from * c, w1 + from * c,
                                 in_a ? a->image + ((size_t)ya * g->w_in + a->ix0 + from) * c : p->zrow,
                                 in_b ? b->image + ((size_t)yb * g->w_in + b->ix0 + from) * c : p->zrow,
                                 (to - from) * c, acc);
            continue;
        }
        for (kx = from; kx < to; ++kx) {
            mcu_conv2d_s8_dot2x2(w0 + kx * c, w1 + kx * c,
                                 in_a ? a->image + ((size_t)ya * g->w_in + a->ix0 + kx * g->dil_w) * c : p->zrow,
                                 in_b ? b->image + ((size_t)yb * g->w_in + b->ix0 + kx * g->dil_w) * c : p->zrow, c,
                                 acc);
        }
    }
}

/* Sum of pixel q's window, taps in the padding as x_zp (the w_zp term). */
static int32_t mcu_conv2d_s8_window_sum(const mcu_conv2d_s8_params *p, const mcu_conv2d_s8_window *a)
{
    const mcu_conv_geom *g = &p->g;
    int32_t sum = 0, ky, kx, ic;
    for (ky = 0; ky < g->k_h; ++ky) {
        const int32_t iy = a->iy0 + ky * g->dil_h;
        for (kx = 0; kx < g->k_w; ++kx) {
            if (iy >= 0 && iy < g->h_in && kx >= a->kx_lo && kx < a->kx_hi) {
                const int8_t *xt = a->image + ((size_t)iy * g->w_in + a->ix0 + kx * g->dil_w) * g->c_in;
                for (ic = 0; ic < g->c_in; ++ic) {
                    sum += xt[ic];
                }
            } else {
                sum += p->x_zp * g->c_in;
            }
        }
    }
    return sum;
}

/* Direct path (group 1, no scratch): the GEMM block reads two pixels' windows in place, kernel row by kernel row
 * (one dot per span of a row that is inside the input or in the padding for both), padded taps from p->zrow.
 * Pairs in the order p->down says (mcucomp/ops/_overlap.py pixelwise_nhwc). */
static void mcu_conv2d_s8_direct(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const mcu_requant rq = p->rq;
    const int32_t pixels = g->n * g->h_out * g->w_out, c_out = g->c_out, k = g->c_in * g->k_h * g->k_w;
    const int32_t plain = mcu_requant_is_plain(&rq, c_out);
    const int32_t last_row = (g->k_h - 1) * g->dil_h;
    const size_t rs = (size_t)g->dil_h * g->w_in * g->c_in, seg = (size_t)g->k_w * g->c_in; /* x, w row steps */
    int32_t i, q0, q1, oc, ky;
    for (i = 0; 2 * i < pixels; ++i) {
        mcu_conv2d_s8_window a, b;
        const int8_t *xa = x, *xb = x;
        int8_t *ya, *yb;
        int32_t sa = 0, sb = 0, inside;
        mcu_conv2d_s8_pair(i, pixels, p->down, &q0, &q1);
        mcu_conv2d_s8_window_of(g, x, q0, &a);
        mcu_conv2d_s8_window_of(g, x, q1, &b);
        ya = y + (size_t)q0 * c_out;
        yb = y + (size_t)q1 * c_out;
        inside = g->dil_w == 1 && a.kx_lo == 0 && a.kx_hi == g->k_w && b.kx_lo == 0 && b.kx_hi == g->k_w &&
                 a.iy0 >= 0 && b.iy0 >= 0 && a.iy0 + last_row < g->h_in && b.iy0 + last_row < g->h_in;
        if (inside) {
            xa = a.image + ((size_t)a.iy0 * g->w_in + a.ix0) * g->c_in;
            xb = b.image + ((size_t)b.iy0 * g->w_in + b.ix0) * g->c_in;
        }
        if (p->w_zp) {
            sa = mcu_conv2d_s8_window_sum(p, &a);
            sb = mcu_conv2d_s8_window_sum(p, &b);
        }
        for (oc = 0; oc < c_out; oc += 2) {
            const int32_t oc1 = oc + 1 < c_out ? oc + 1 : oc;
            const int32_t z0 = p->w_zp ? p->w_zp[oc] : 0, z1 = p->w_zp ? p->w_zp[oc1] : 0;
            const int8_t *w0 = p->w + (size_t)oc * k, *w1 = p->w + (size_t)oc1 * k;
            int32_t acc[4];
            acc[0] = p->kbias[oc] - z0 * sa;
            acc[1] = p->kbias[oc] - z0 * sb;
            acc[2] = p->kbias[oc1] - z1 * sa;
            acc[3] = p->kbias[oc1] - z1 * sb;
            if (inside) { /* both windows inside the input, undilated rows: one dot per kernel row, no spans */
                for (ky = 0; ky < g->k_h; ++ky) {
                    mcu_conv2d_s8_dot2x2(w0 + ky * seg, w1 + ky * seg, xa + ky * rs, xb + ky * rs, (int32_t)seg,
                                         acc);
                }
            } else {
                for (ky = 0; ky < g->k_h; ++ky) {
                    mcu_conv2d_s8_direct_row(p, w0 + ky * seg, w1 + ky * seg, &a, &b, ky, acc);
                }
            }
            ya[oc] = mcu_conv2d_s8_requant(&rq, plain, acc[0], oc);
            yb[oc] = mcu_conv2d_s8_requant(&rq, plain, acc[1], oc);
            ya[oc1] = mcu_conv2d_s8_requant(&rq, plain, acc[2], oc1);
            yb[oc1] = mcu_conv2d_s8_requant(&rq, plain, acc[3], oc1);
        }
    }
}

/* General path (weights: output channel, kernel row, kernel column, input channel of its group): output pixels one
 * by one, up or down as p->down says, all channels of one before the next (mcucomp/ops/_overlap.py
 * pixelwise_nhwc). */
static void mcu_conv2d_s8_general(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const mcu_requant rq = p->rq;
    const int32_t pixels = g->n * g->h_out * g->w_out, plain = mcu_requant_is_plain(&rq, g->c_out);
    int32_t i, iy0, ix0;
    for (i = 0; i < pixels; ++i) {
        const int32_t q = p->down ? pixels - 1 - i : i;
        const int32_t start = mcu_conv2d_s8_window_start(g, q, &iy0, &ix0);
        const int8_t *xw = x + (size_t)(start - iy0 * g->w_in - ix0) * g->c_in;
        mcu_conv2d_s8_checked(p, &rq, plain, xw, iy0, ix0, y + (size_t)q * g->c_out);
    }
}

void mcu_conv2d_s8(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch)
{
    switch (p->path) {
    case MCU_CONV2D_S8_POINTWISE:
        mcu_conv2d_s8_pointwise(p, x, y);
        break;
    case MCU_CONV2D_S8_IM2COL:
        mcu_conv2d_s8_im2col(p, x, y, (int8_t *)scratch);
        break;
    case MCU_CONV2D_S8_DEPTHWISE:
    case MCU_CONV2D_S8_DEPTHWISE_RING:
        mcu_conv2d_s8_dw(p, x, y);
        break;
    case MCU_CONV2D_S8_DIRECT:
        mcu_conv2d_s8_direct(p, x, y);
        break;
    case MCU_CONV2D_S8_LOCAL:
        mcu_conv2d_s8_local(p, x, y);
        break;
    default:
        mcu_conv2d_s8_general(p, x, y);
        break;
    }
}
