#include "conv2d_f32_depthwise.h"

/* Every output accumulates from 0.0 over the taps inside the input in (row, column) order with MCU_F32_MAC, adds
 * the bias last and is clamped: mcu_conv2d_f32's order for a depthwise conv, so both give the same bits. Outputs are
 * written plane by plane, each in row-major order (the depthwise overlap margin in mcucomp/ops/_overlap.py relies on
 * it). */

/* One output's end: the bias when there is one (adding 0.0 instead would turn a -0.0 sum into +0.0), the clamp. */
#define MCU_DW_STORE(dst, acc, has_bias, b, lo, hi)                                                                \
    do {                                                                                                           \
        float v_ = (acc);                                                                                          \
        if (has_bias) {                                                                                            \
            v_ += (b);                                                                                             \
        }                                                                                                          \
        *(dst) = v_ < (lo) ? (lo) : (v_ > (hi) ? (hi) : v_);                                                       \
    } while (0)

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

/* First tap index k in [0, k_n) whose position start + k * dil is at least 0, and one past the last below n. */
static int32_t mcu_dw_first(int32_t start, int32_t dil, int32_t k_n)
{
    int32_t k = start < 0 ? (-start + dil - 1) / dil : 0;
    return k < k_n ? k : k_n;
}

static int32_t mcu_dw_end(int32_t start, int32_t dil, int32_t k_n, int32_t n)
{
    int32_t k = start < n ? (n - 1 - start) / dil + 1 : 0;
    return k < k_n ? k : k_n;
}

/* Outputs [ox0, ox1) of row oy, each window clipped to the input. */
static void mcu_dw_row_checked(const mcu_conv2d_f32_params *p, const float *xp, const float *wk, int has_bias,
                               float b, float *yr, int32_t oy, int32_t ox0, int32_t ox1)
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
        MCU_DW_STORE(yr + ox, acc, has_bias, b, p->act_min, p->act_max);
    }
}

/* One 3x3 output from the input columns a, b, c (each the values of the R valid kernel rows; R constant), in
 * (row, column) order; weights wRC of the valid rows. */
#define MCU_DW3_OUT(dst, a, b, c)                                                                                  \
    do {                                                                                                           \
        float acc_ = 0.0f;                                                                                         \
        acc_ = MCU_F32_MAC(acc_, w00, a##0);                                                                       \
        acc_ = MCU_F32_MAC(acc_, w01, b##0);                                                                       \
        acc_ = MCU_F32_MAC(acc_, w02, c##0);                                                                       \
        if (R > 1) {                                                                                               \
            acc_ = MCU_F32_MAC(acc_, w10, a##1);                                                                   \
            acc_ = MCU_F32_MAC(acc_, w11, b##1);                                                                   \
            acc_ = MCU_F32_MAC(acc_, w12, c##1);                                                                   \
        }                                                                                                          \
        if (R > 2) {                                                                                               \
            acc_ = MCU_F32_MAC(acc_, w20, a##2);                                                                   \
            acc_ = MCU_F32_MAC(acc_, w21, b##2);                                                                   \
            acc_ = MCU_F32_MAC(acc_, w22, c##2);                                                                   \
        }                                                                                                          \
        MCU_DW_STORE(dst, acc_, has_bias, bias, lo, hi);                                                           \
    } while (0)

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

/* One output whose window starts at input column ix (r0..r2[ix]) and keeps its columns [kx0, kx1) (the others
 * lie outside the input): a left or right border output of a 3x3 row. */
static MCU_INLINE float mcu_dw3_edge(const float *r0, const float *r1, const float *r2, const float *wr, int R,
                                     int32_t ix, int32_t kx0, int32_t kx1)
{
    float acc = 0.0f;
    int32_t kx;
    for (kx = kx0; kx < kx1; ++kx) {
        acc = MCU_F32_MAC(acc, wr[kx], r0[ix + kx]);
    }
    if (R > 1) {
        for (kx = kx0; kx < kx1; ++kx) {
            acc = MCU_F32_MAC(acc, wr[3 + kx], r1[ix + kx]);
        }
    }
    if (R > 2) {
        for (kx = kx0; kx < kx1; ++kx) {
            acc = MCU_F32_MAC(acc, wr[6 + kx], r2[ix + kx]);
        }
    }
    return acc;
}

/* `count` interior outputs of a 3x3 row at stride s (1 or 2) whose R valid kernel rows (2 or 3, constant) start at
 * r0..r2 (the first window's left column) with the weight rows wr[0..3R): the weights stay in registers and the
 * window slides, each output loading only the columns it does not share with the previous one, the three column
 * slots taking turns so that nothing is moved. */
static MCU_INLINE void mcu_dw3_run(const float *r0, const float *r1, const float *r2, const float *wr, int R,
                                   int32_t s, int has_bias, float bias, float lo, float hi, float *yr, int32_t count)
{
    const float w00 = wr[0], w01 = wr[1], w02 = wr[2];
    const float w10 = R > 1 ? wr[3] : 0.0f, w11 = R > 1 ? wr[4] : 0.0f, w12 = R > 1 ? wr[5] : 0.0f;
    const float w20 = R > 2 ? wr[6] : 0.0f, w21 = R > 2 ? wr[7] : 0.0f, w22 = R > 2 ? wr[8] : 0.0f;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, b0 = 0.0f, b1 = 0.0f, b2 = 0.0f, c0 = 0.0f, c1 = 0.0f, c2 = 0.0f;
    MCU_DW3_LOAD(a, 0);
    MCU_DW3_LOAD(b, 1);
    if (s == 1) {
        for (; count >= 3; count -= 3) {
            MCU_DW3_LOAD(c, 2);
            MCU_DW3_OUT(yr, a, b, c);
            MCU_DW3_LOAD(a, 3);
            MCU_DW3_OUT(yr + 1, b, c, a);
            MCU_DW3_LOAD(b, 4);
            MCU_DW3_OUT(yr + 2, c, a, b);
            r0 += 3, r1 += 3, r2 += 3, yr += 3;
        }
        if (count > 0) {
            MCU_DW3_LOAD(c, 2);
            MCU_DW3_OUT(yr, a, b, c);
            if (count > 1) {
                MCU_DW3_LOAD(a, 3);
                MCU_DW3_OUT(yr + 1, b, c, a);
            }
        }
        return;
    }
    for (; count >= 3; count -= 3) {
        MCU_DW3_LOAD(c, 2);
        MCU_DW3_OUT(yr, a, b, c);
        MCU_DW3_LOAD(a, 3);
        MCU_DW3_LOAD(b, 4);
        MCU_DW3_OUT(yr + 1, c, a, b);
        MCU_DW3_LOAD(c, 5);
        MCU_DW3_LOAD(a, 6);
        MCU_DW3_OUT(yr + 2, b, c, a);
        MCU_DW3_LOAD(b, 7);
        r0 += 6, r1 += 6, r2 += 6, yr += 3;
    }
    if (count > 0) {
        MCU_DW3_LOAD(c, 2);
        MCU_DW3_OUT(yr, a, b, c);
        if (count > 1) {
            MCU_DW3_LOAD(a, 3);
            MCU_DW3_LOAD(b, 4);
            MCU_DW3_OUT(yr + 1, c, a, b);
        }
    }
}

/* One output row of a 3x3 window at stride s (the params' stride_w) whose R valid kernel rows (2 or 3, constant)
 * are the input rows r0..r2, weight rows wr[0..3R): in column order (the overlap margin relies on it) the left
 * border outputs (columns [0, ox0)) from their columns inside the input, the interior ones sliding, the right border
 * ones (columns [ox1, w_out)). */
static MCU_INLINE void mcu_dw3_row(const mcu_conv2d_f32_params *p, const float *r0, const float *r1, const float *r2,
                                   const float *wr, int R, int has_bias, float bias, float *yr, int32_t ox0,
                                   int32_t ox1)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t s = g->stride_w;
    int32_t ox;
    for (ox = 0; ox < ox0; ++ox) {
        const int32_t ix = ox * s - g->pad_l;
        MCU_DW_STORE(yr + ox, mcu_dw3_edge(r0, r1, r2, wr, R, ix, -ix, ix + 3 > g->w_in ? g->w_in - ix : 3),
                     has_bias, bias, p->act_min, p->act_max);
    }
    if (ox1 > ox0) {
        const int32_t ix0 = ox0 * s - g->pad_l;
        mcu_dw3_run(r0 + ix0, r1 + ix0, r2 + ix0, wr, R, s, has_bias, bias, p->act_min, p->act_max, yr + ox0,
                    ox1 - ox0);
    }
    for (ox = ox1; ox < g->w_out; ++ox) {
        const int32_t ix = ox * s - g->pad_l;
        MCU_DW_STORE(yr + ox, mcu_dw3_edge(r0, r1, r2, wr, R, ix, ix < 0 ? -ix : 0, g->w_in - ix), has_bias, bias,
                     p->act_min, p->act_max);
    }
}

static void mcu_dw3_row3(const mcu_conv2d_f32_params *p, const float *r0, const float *wr, int has_bias, float b,
                         float *yr, int32_t ox0, int32_t ox1)
{
    mcu_dw3_row(p, r0, r0 + p->g.w_in, r0 + 2 * p->g.w_in, wr, 3, has_bias, b, yr, ox0, ox1);
}

static void mcu_dw3_row2(const mcu_conv2d_f32_params *p, const float *r0, const float *wr, int has_bias, float b,
                         float *yr, int32_t ox0, int32_t ox1)
{
    mcu_dw3_row(p, r0, r0 + p->g.w_in, r0, wr, 2, has_bias, b, yr, ox0, ox1);
}

/* A 3x3 plane at stride s (1 or 2, both axes), undilated, at least 3 input columns: rows with 3 or 2 kernel rows
 * inside the input run mcu_dw3_row, the others (1-row planes, pads of 2) walk clipped windows. */
static void mcu_dw3_plane(const mcu_conv2d_f32_params *p, const float *xp, const float *wk, int has_bias, float b,
                          float *yp)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t s = g->stride_w;
    /* interior columns: ix0 = ox * s - pad_l >= 0 and ix0 + 2 < w_in */
    const int32_t ox0a = (g->pad_l + s - 1) / s, ox1a = (g->w_in - 3 + g->pad_l) / s + 1;
    const int32_t ox0 = ox0a < g->w_out ? ox0a : g->w_out, ox1 = ox1a < ox0 ? ox0 : (ox1a < g->w_out ? ox1a : g->w_out);
    int32_t oy;
    for (oy = 0; oy < g->h_out; ++oy) {
        const int32_t iy0 = oy * g->stride_h - g->pad_t;
        const int32_t ky0 = iy0 < 0 ? -iy0 : 0, ky1 = iy0 + 3 > g->h_in ? g->h_in - iy0 : 3;
        float *yr = yp + (size_t)oy * g->w_out;
        const float *r0 = xp + (size_t)(iy0 + ky0) * g->w_in;
        if (ky1 - ky0 == 3) {
            mcu_dw3_row3(p, r0, wk, has_bias, b, yr, ox0, ox1);
        } else if (ky1 - ky0 == 2) {
            mcu_dw3_row2(p, r0, wk + 3 * ky0, has_bias, b, yr, ox0, ox1);
        } else {
            mcu_dw_row_checked(p, xp, wk, has_bias, b, yr, oy, 0, g->w_out);
        }
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
            const float b = bias ? bias[oc] : 0.0f;
            if (three) {
                mcu_dw3_plane(p, xp, wk, bias != NULL, b, yp);
                continue;
            }
            for (oy = 0; oy < g->h_out; ++oy) {
                mcu_dw_row_checked(p, xp, wk, bias != NULL, b, yp + (size_t)oy * g->w_out, oy, 0, g->w_out);
            }
        }
    }
}
