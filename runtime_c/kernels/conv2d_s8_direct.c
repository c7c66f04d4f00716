#include "conv2d_s8_direct.h"
#include "conv2d_s8_gemm.h"
#include "conv2d_s8_window.h"

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

/** mcu_conv2d_s8_dot2x2 for any k, out of line: the direct path's spans at the border (the inline copies cost
 * flash for little time). */
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_dot2x2_span(const int8_t *w0, const int8_t *w1, const int8_t *c0,
                                                            const int8_t *c1, int32_t k, int32_t acc[4])
{
    mcu_conv2d_s8_dot2x2(w0, w1, c0, c1, k, 0, acc);
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
            mcu_conv2d_s8_dot2x2_span(w0 + from * c, w1 + from * c,
                                 in_a ? a->image + ((size_t)ya * g->w_in + a->ix0 + from) * c : p->zrow,
                                 in_b ? b->image + ((size_t)yb * g->w_in + b->ix0 + from) * c : p->zrow,
                                 (to - from) * c, acc);
            continue;
        }
        for (kx = from; kx < to; ++kx) {
            mcu_conv2d_s8_dot2x2_span(w0 + kx * c, w1 + kx * c,
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
void mcu_conv2d_s8_direct(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch)
{
    const mcu_conv_geom *g = &p->g;
    const mcu_requant rq = p->rq;
    const int32_t pixels = g->n * g->h_out * g->w_out, c_out = g->c_out, k = g->c_in * g->k_h * g->k_w;
    const int32_t mode = mcu_conv2d_s8_rq_mode(p);
    const int32_t last_row = (g->k_h - 1) * g->dil_h, seg = g->k_w * g->c_in; /* w row step */
    const size_t rs = (size_t)g->dil_h * g->w_in * g->c_in;                    /* x row step */
    int32_t i, q0, q1, oc, ky;
    (void)scratch;
    for (i = 0; 2 * i < pixels; ++i) {
        mcu_conv2d_s8_window a, b;
        int8_t *ya, *yb;
        int32_t sa = 0, sb = 0;
        mcu_conv2d_s8_pair(i, pixels, p->down, &q0, &q1);
        mcu_conv2d_s8_window_of(g, x, q0, &a);
        mcu_conv2d_s8_window_of(g, x, q1, &b);
        ya = y + (size_t)q0 * c_out;
        yb = y + (size_t)q1 * c_out;
        if (g->dil_w == 1 && a.kx_lo == 0 && a.kx_hi == g->k_w && b.kx_lo == 0 && b.kx_hi == g->k_w &&
            a.iy0 >= 0 && b.iy0 >= 0 && a.iy0 + last_row < g->h_in && b.iy0 + last_row < g->h_in) {
            /* both windows inside the input, undilated rows: the GEMM over k_h runs per column, no spans */
            mcu_conv2d_s8_gemm_rows(p, mode, a.image + ((size_t)a.iy0 * g->w_in + a.ix0) * g->c_in,
                                    b.image + ((size_t)b.iy0 * g->w_in + b.ix0) * g->c_in, g->k_h, seg, rs, ya,
                                    yb);
            continue;
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
            for (ky = 0; ky < g->k_h; ++ky) {
                mcu_conv2d_s8_direct_row(p, w0 + ky * seg, w1 + ky * seg, &a, &b, ky, acc);
            }
            mcu_conv2d_s8_store2x2(&rq, mode, acc, oc, oc1, ya, yb);
        }
    }
}
