#include "conv2d_f32_depthwise.h"

/* Every output sums the products of its taps inside the input in (row, column) order with MCU_F32_MAC, adds the
 * bias last and is clamped: mcu_conv2d_f32's order for a depthwise conv, and the same bits (its sums start from 0.0;
 * where these do not, mcu_dw_bias says why the result is the same). Outputs are written plane by plane, each in
 * row-major order (the depthwise overlap margin in mcucomp/ops/_overlap.py relies on it). */

/* One output's end: the plane's bias term (mcu_dw_bias), the clamp. */
#define MCU_DW_STORE(dst, acc, b, lo, hi)                                                                          \
    do {                                                                                                           \
        const float v_ = (acc) + (b);                                                                              \
        *(dst) = v_ < (lo) ? (lo) : (v_ > (hi) ? (hi) : v_);                                                       \
    } while (0)

/* The term every output of plane oc adds last, so that no output needs a test for the bias:
 * - fused form: bias[oc], or -0.0 without a bias (s + -0.0 == s for every s);
 * - separate form (the sliding rows start from their first product, not from 0.0 + it): with the sum s of the
 *   products and t = 0.0 + s (what starting from 0.0 gives), t == s except that t is +0.0 where s is -0.0 (all
 *   products -0.0), and t is never -0.0; so t + bias == s + bias', bias' being bias with -0.0 made +0.0, and +0.0
 *   without a bias. The clipped windows start from 0.0 (t, never -0.0) and add the same bias'. */
static float mcu_dw_bias(const float *bias, int32_t oc)
{
#if MCU_F32_FUSED
    return bias ? bias[oc] : -0.0f;
#else
    return bias && bias[oc] != 0.0f ? bias[oc] : 0.0f;
#endif
}

/* The taps of one window, row range [ky0, ky1) and column range [kx0, kx1) (the taps inside the input), from
 * iy0/ix0, the window's top-left input position. */
static float mcu_dw_window(const float *xp, int32_t w_in, const float *wk, int32_t k_w, int32_t dil_h, int32_t dil_w,
                           int32_t iy0, int32_t ix0, int32_t ky0, int32_t ky1, int32_t kx0, int32_t kx1)
{
    float acc = 0.0f;
    int32_t ky, kx;
    for (ky = ky0; ky < ky1; ++ky) {
        const float *xr = xp + (size_t)(iy0 + ky * dil_h) * w_in + ix0;
        const float *wr = wk + ky * k_w;
        for (kx = kx0; kx < kx1; ++kx) {
            acc = MCU_F32_MAC(acc, wr[kx], xr[kx * dil_w]);
        }
    }
    return acc;
}

/* The first tap index k in [0, k_n] whose position start + k * dil is at least 0. */
static int32_t mcu_dw_first(int32_t start, int32_t dil, int32_t k_n)
{
    int32_t k = start < 0 ? (-start + dil - 1) / dil : 0;
    return k < k_n ? k : k_n;
}

/* One past the last tap index k in [0, k_n] whose position start + k * dil is below n. */
static int32_t mcu_dw_end(int32_t start, int32_t dil, int32_t k_n, int32_t n)
{
    int32_t k = start < n ? (n - 1 - start) / dil + 1 : 0;
    return k < k_n ? k : k_n;
}

/* Outputs [ox0, ox1) of row oy, each window clipped to the input. */
static void mcu_dw_row_checked(const mcu_conv2d_f32_params *p, const float *xp, const float *wk, float b, float *yr,
                               int32_t oy, int32_t ox0, int32_t ox1)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t iy0 = oy * g->stride_h - g->pad_t;
    const int32_t ky0 = mcu_dw_first(iy0, g->dil_h, g->k_h), ky1 = mcu_dw_end(iy0, g->dil_h, g->k_h, g->h_in);
    int32_t ox;
    for (ox = ox0; ox < ox1; ++ox) {
        const int32_t ix0 = ox * g->stride_w - g->pad_l;
        const float acc = mcu_dw_window(xp, g->w_in, wk, g->k_w, g->dil_h, g->dil_w, iy0, ix0, ky0, ky1,
                                        mcu_dw_first(ix0, g->dil_w, g->k_w),
                                        mcu_dw_end(ix0, g->dil_w, g->k_w, g->w_in));
        MCU_DW_STORE(yr + ox, acc, b, p->act_min, p->act_max);
    }
}

/* One 3x3 output from the input columns a, b, c (each the values of the R valid kernel rows; R constant) of which
 * those with KA, KB, KC set (constants) lie inside the input, in (row, column) order; weights wRC of the valid
 * rows. */
#define MCU_DW3_ROW_TAPS(acc, r, a, b, c, KA, KB, KC)                                                              \
    do {                                                                                                           \
        if (KA) {                                                                                                  \
            acc = MCU_F32_MAC(acc, w##r##0, a##r);                                                                 \
        }                                                                                                          \
        if (KB) {                                                                                                  \
            acc = MCU_F32_MAC(acc, w##r##1, b##r);                                                                 \
        }                                                                                                          \
        if (KC) {                                                                                                  \
            acc = MCU_F32_MAC(acc, w##r##2, c##r);                                                                 \
        }                                                                                                          \
    } while (0)

#define MCU_DW3_OUT(dst, a, b, c, KA, KB, KC)                                                                      \
    do {                                                                                                           \
        float acc_ = MCU_DW3_START;                                                                                \
        MCU_DW3_ROW_TAPS(acc_, 0, a, b, c, KA, KB, KC);                                                            \
        if (R > 1) {                                                                                               \
            MCU_DW3_ROW_TAPS(acc_, 1, a, b, c, KA, KB, KC);                                                        \
        }                                                                                                          \
        if (R > 2) {                                                                                               \
            MCU_DW3_ROW_TAPS(acc_, 2, a, b, c, KA, KB, KC);                                                        \
        }                                                                                                          \
        MCU_DW_STORE(dst, acc_, bias, lo, hi);                                                                     \
    } while (0)

/* Where an unrolled output's sum starts: 0.0 (fused: the first step is fmaf(w, x, 0.0)), or -0.0 in the separate
 * form: -0.0 + p == p for every p, so the compiler drops that addition and the sum is mcu_dw_bias's s. */
#if MCU_F32_FUSED
#define MCU_DW3_START 0.0f
#else
#define MCU_DW3_START -0.0f
#endif

/* Loads input column i of the R valid rows into slot s. */
#define MCU_DW3_LOAD(s, i)                                                                                         \
    do {                                                                                                           \
        s##0 = r0[i];                                                                                              \
        if (R > 1) {                                                                                               \
            s##1 = r1[i];                                                                                          \
        }                                                                                                          \
        if (R > 2) {                                                                                               \
            s##2 = r2[i];                                                                                          \
        }                                                                                                          \
    } while (0)

/* Output rows [oy, oy_end) of a 3x3 plane (xp, yp) at stride s (1 or 2, the params' stride_w), each with the same
 * R valid kernel rows (2 or 3, constant), the first at kernel row ky0: the weights stay in registers over the rows.
 * Each row in column order (the overlap margin relies on it): the left border outputs (columns [0, ox0)), the
 * interior ones sliding (each loads only the input columns it does not share with the previous one, the three
 * column slots taking turns so that nothing is moved), the right border ones (columns [ox1, w_out)). A border
 * output missing only column 0 (pad 1 on the left) or only column 2 (the last input column) is unrolled too, the
 * others (pads of 2, stride 2 past the last column) walk their clipped windows. */
static MCU_INLINE void mcu_dw3_rows(const mcu_conv2d_f32_params *p, const float *xp, const float *wk, int R,
                                    int32_t ky0, int32_t oy, int32_t oy_end, float bias, float *yp, int32_t ox0,
                                    int32_t ox1)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t s = g->stride_w, w_in = g->w_in, w_out = g->w_out;
    const float lo = p->act_min, hi = p->act_max;
    const float *wr = wk + 3 * ky0;
    const float w00 = wr[0], w01 = wr[1], w02 = wr[2];
    const float w10 = R > 1 ? wr[3] : 0.0f, w11 = R > 1 ? wr[4] : 0.0f, w12 = R > 1 ? wr[5] : 0.0f;
    const float w20 = R > 2 ? wr[6] : 0.0f, w21 = R > 2 ? wr[7] : 0.0f, w22 = R > 2 ? wr[8] : 0.0f;
    const int left1 = ox0 == 1 && g->pad_l == 1;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, b0 = 0.0f, b1 = 0.0f, b2 = 0.0f, c0 = 0.0f, c1 = 0.0f, c2 = 0.0f;
    for (; oy < oy_end; ++oy) {
        const float *r0 = xp + (size_t)(oy * g->stride_h - g->pad_t + ky0) * w_in;
        const float *r1 = r0 + w_in, *r2 = r0 + 2 * w_in;
        float *yr = yp + (size_t)oy * w_out;
        int32_t ox, count = ox1 - ox0;
        if (left1) {
            MCU_DW3_LOAD(b, 0);
            MCU_DW3_LOAD(c, 1);
            MCU_DW3_OUT(yr, a, b, c, 0, 1, 1);
        } else {
            mcu_dw_row_checked(p, xp, wk, bias, yr, oy, 0, ox0);
        }
        if (count > 0) {
            const int32_t ix0 = ox0 * s - g->pad_l;
            const float *q0 = r0, *q1 = r1, *q2 = r2;
            float *yq = yr + ox0;
            r0 += ix0, r1 += ix0, r2 += ix0;
            MCU_DW3_LOAD(a, 0);
            MCU_DW3_LOAD(b, 1);
            if (s == 1) {
                for (; count >= 3; count -= 3) {
                    MCU_DW3_LOAD(c, 2);
                    MCU_DW3_OUT(yq, a, b, c, 1, 1, 1);
                    MCU_DW3_LOAD(a, 3);
                    MCU_DW3_OUT(yq + 1, b, c, a, 1, 1, 1);
                    MCU_DW3_LOAD(b, 4);
                    MCU_DW3_OUT(yq + 2, c, a, b, 1, 1, 1);
                    r0 += 3, r1 += 3, r2 += 3, yq += 3;
                }
            } else {
                for (; count >= 3; count -= 3) {
                    MCU_DW3_LOAD(c, 2);
                    MCU_DW3_OUT(yq, a, b, c, 1, 1, 1);
                    MCU_DW3_LOAD(a, 3);
                    MCU_DW3_LOAD(b, 4);
                    MCU_DW3_OUT(yq + 1, c, a, b, 1, 1, 1);
                    MCU_DW3_LOAD(c, 5);
                    MCU_DW3_LOAD(a, 6);
                    MCU_DW3_OUT(yq + 2, b, c, a, 1, 1, 1);
                    MCU_DW3_LOAD(b, 7);
                    r0 += 6, r1 += 6, r2 += 6, yq += 3;
                }
            }
            if (count > 0) {
                MCU_DW3_LOAD(c, 2);
                MCU_DW3_OUT(yq, a, b, c, 1, 1, 1);
            }
            if (count > 1) {
                MCU_DW3_LOAD(a, 3);
                if (s == 1) {
                    MCU_DW3_OUT(yq + 1, b, c, a, 1, 1, 1);
                } else {
                    MCU_DW3_LOAD(b, 4);
                    MCU_DW3_OUT(yq + 1, c, a, b, 1, 1, 1);
                }
            }
            r0 = q0, r1 = q1, r2 = q2;
        }
        for (ox = ox1; ox < w_out; ++ox) {
            const int32_t ix = ox * s - g->pad_l;
            if (ix == w_in - 2 && ix >= 0) {
                MCU_DW3_LOAD(a, ix);
                MCU_DW3_LOAD(b, ix + 1);
                MCU_DW3_OUT(yr + ox, a, b, c, 1, 1, 0);
            } else {
                mcu_dw_row_checked(p, xp, wk, bias, yr, oy, ox, ox + 1);
            }
        }
    }
}

/* mcu_dw3_rows with all 3 kernel rows inside the input, and with 2 (the first at ky0). */
static void mcu_dw3_rows3(const mcu_conv2d_f32_params *p, const float *xp, const float *wk, int32_t oy,
                          int32_t oy_end, float b, float *yp, int32_t ox0, int32_t ox1)
{
    mcu_dw3_rows(p, xp, wk, 3, 0, oy, oy_end, b, yp, ox0, ox1);
}

static void mcu_dw3_rows2(const mcu_conv2d_f32_params *p, const float *xp, const float *wk, int32_t ky0, int32_t oy,
                          int32_t oy_end, float b, float *yp, int32_t ox0, int32_t ox1)
{
    mcu_dw3_rows(p, xp, wk, 2, ky0, oy, oy_end, b, yp, ox0, ox1);
}

/* A 3x3 plane at stride s (1 or 2, both axes), undilated, at least 3 input columns: each run of rows with the same
 * 3 or 2 kernel rows inside the input goes through mcu_dw3_rows, the others (1-row inputs, pads of 2) walk clipped
 * windows. */
static void mcu_dw3_plane(const mcu_conv2d_f32_params *p, const float *xp, const float *wk, float b, float *yp)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t s = g->stride_w;
    /* interior columns: ix0 = ox * s - pad_l >= 0 and ix0 + 2 < w_in */
    const int32_t ox0a = (g->pad_l + s - 1) / s, ox1a = (g->w_in - 3 + g->pad_l) / s + 1;
    const int32_t ox0 = ox0a < g->w_out ? ox0a : g->w_out;
    const int32_t ox1 = ox1a < ox0 ? ox0 : (ox1a < g->w_out ? ox1a : g->w_out);
    int32_t oy = 0;
    while (oy < g->h_out) {
        const int32_t iy0 = oy * g->stride_h - g->pad_t;
        const int32_t ky0 = iy0 < 0 ? -iy0 : 0, ky1 = iy0 + 3 > g->h_in ? g->h_in - iy0 : 3;
        int32_t end = oy + 1;
        /* the rows after oy with the same kernel rows inside the input */
        while (end < g->h_out) {
            const int32_t iy = end * g->stride_h - g->pad_t;
            if ((iy < 0 ? -iy : 0) != ky0 || (iy + 3 > g->h_in ? g->h_in - iy : 3) != ky1) {
                break;
            }
            ++end;
        }
        if (ky1 - ky0 == 3) {
            mcu_dw3_rows3(p, xp, wk, oy, end, b, yp, ox0, ox1);
        } else if (ky1 - ky0 == 2) {
            mcu_dw3_rows2(p, xp, wk, ky0, oy, end, b, yp, ox0, ox1);
        } else {
            for (; oy < end; ++oy) {
                mcu_dw_row_checked(p, xp, wk, b, yp + (size_t)oy * g->w_out, oy, 0, g->w_out);
            }
        }
        oy = end;
    }
}

void mcu_conv2d_f32_depthwise(const mcu_conv2d_f32_params *p, const float *x, const float *w, const float *bias,
                              float *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t mult = g->c_out / g->c_in;
    const int32_t k_vol = g->k_h * g->k_w;
    const size_t in_plane = (size_t)g->h_in * g->w_in, out_plane = (size_t)g->h_out * g->w_out;
    const int three = g->k_h == 3 && g->k_w == 3 && g->dil_h == 1 && g->dil_w == 1 && g->stride_h == g->stride_w &&
                      (g->stride_w == 1 || g->stride_w == 2) && g->w_in >= 3;
    int32_t n, oc, oy;
    for (n = 0; n < g->n; ++n) {
        for (oc = 0; oc < g->c_out; ++oc) {
            const float *xp = x + ((size_t)n * g->c_in + oc / mult) * in_plane;
            const float *wk = w + (size_t)oc * k_vol;
            float *yp = y + ((size_t)n * g->c_out + oc) * out_plane;
            const float b = mcu_dw_bias(bias, oc);
            if (three) {
                mcu_dw3_plane(p, xp, wk, b, yp);
                continue;
            }
            for (oy = 0; oy < g->h_out; ++oy) {
                mcu_dw_row_checked(p, xp, wk, b, yp + (size_t)oy * g->w_out, oy, 0, g->w_out);
            }
        }
    }
}
