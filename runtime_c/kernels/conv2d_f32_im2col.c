#include "conv2d_f32_im2col.h"
#include "conv2d_f32_gemm.h"

/* Column j (of the block's columns, MCU_F32_BLOCK_PX floats a tap) of the output pixel (oy, ox): its taps in the
 * order (input channel, kernel row, column), zeros where the window leaves the input. */
static void mcu_conv2d_f32_gather(const mcu_conv_geom *g, const float *x, int32_t oy, int32_t ox, float *c)
{
    const size_t in_plane = (size_t)g->h_in * g->w_in;
    const int32_t iy0 = oy * g->stride_h - g->pad_t;
    const int32_t ix0 = ox * g->stride_w - g->pad_l;
    const int32_t inside_x = ix0 >= 0 && ix0 + (g->k_w - 1) * g->dil_w < g->w_in;
    int32_t ic, ky, kx;
    for (ic = 0; ic < g->c_in; ++ic) {
        const float *xc = x + (size_t)ic * in_plane;
        for (ky = 0; ky < g->k_h; ++ky) {
            const int32_t iy = iy0 + ky * g->dil_h;
            const float *row = xc + (size_t)(iy < 0 || iy >= g->h_in ? 0 : iy) * g->w_in;
            if (iy < 0 || iy >= g->h_in) {
                for (kx = 0; kx < g->k_w; ++kx, c += MCU_F32_BLOCK_PX) {
                    *c = 0.0f;
                }
            } else if (inside_x) {
                for (kx = 0; kx < g->k_w; ++kx, c += MCU_F32_BLOCK_PX) {
                    *c = row[ix0 + kx * g->dil_w];
                }
            } else {
                for (kx = 0; kx < g->k_w; ++kx, c += MCU_F32_BLOCK_PX) {
                    const int32_t ix = ix0 + kx * g->dil_w;
                    *c = ix >= 0 && ix < g->w_in ? row[ix] : 0.0f;
                }
            }
        }
    }
}

/* Four floats, copied as one: GCC moves a word-aligned 16-byte struct with LDM/STM (1 + 4 cycles each on the M4)
 * where four single loads and stores take about 10. */
typedef struct {
    float v[MCU_F32_BLOCK_PX];
} mcu_conv2d_f32_quad;

/* The columns of three taps (mcu_conv2d_f32_gather_row's c, moved past them): tap 0's four inputs, tap 1's, tap 2's. */
#define MCU_F32_STORE_THREE_TAPS(a0, a1, a2, a3, b0, b1, b2, b3, d0, d1, d2, d3)                                     \
    do {                                                                                                             \
        c[0] = a0;                                                                                                   \
        c[1] = a1;                                                                                                   \
        c[2] = a2;                                                                                                   \
        c[3] = a3;                                                                                                   \
        c[4] = b0;                                                                                                   \
        c[5] = b1;                                                                                                   \
        c[6] = b2;                                                                                                   \
        c[7] = b3;                                                                                                   \
        c[8] = d0;                                                                                                   \
        c[9] = d1;                                                                                                   \
        c[10] = d2;                                                                                                  \
        c[11] = d3;                                                                                                  \
        c += 3 * MCU_F32_BLOCK_PX;                                                                                   \
    } while (0)

/* The floats of one input row a row block's window spans across: MCU_F32_BLOCK_PX pixels stride_w apart, each
 * k_w taps dil_w apart (the row segment mcu_conv2d_f32_gather_row copies a window leaving the row into). */
static MCU_INLINE int32_t mcu_conv2d_f32_row_span(const mcu_conv_geom *g)
{
    return (MCU_F32_BLOCK_PX - 1) * g->stride_w + (g->k_w - 1) * g->dil_w + 1;
}

/* All MCU_F32_BLOCK_PX columns of a block whose pixels lie in one output row: per input row, the taps read the row's
 * segment the window spans, in place where it lies inside the row, else from seg (span floats: zeros where the
 * segment leaves the row, zeroed once a block, the inside part copied row by row, so no tap tests a bound); per tap,
 * the block's inputs are MCU_F32_BLOCK_PX floats stride_w apart in the segment (stride 1: copied as one quad). */
static void mcu_conv2d_f32_gather_row(const mcu_conv_geom *g, const float *x, int32_t oy, int32_t ox, float *c,
                                      float *seg)
{
    const size_t in_plane = (size_t)g->h_in * g->w_in;
    const int32_t h_in = g->h_in, w_in = g->w_in, k_h = g->k_h, k_w = g->k_w, dil_h = g->dil_h, dil_w = g->dil_w;
    const int32_t s = g->stride_w, span = mcu_conv2d_f32_row_span(g);
    const int32_t iy0 = oy * g->stride_h - g->pad_t;
    const int32_t ix0 = ox * g->stride_w - g->pad_l;
    /* the segment's floats inside the row: i_lo <= i < i_hi */
    const int32_t i_lo = ix0 < 0 ? -ix0 : 0;
    const int32_t i_hi = ix0 + span > w_in ? w_in - ix0 : span;
    const int32_t inside_x = i_lo == 0 && i_hi == span;
    /* the common 3-wide window, dilation 1 across, stride 1 (its three taps span six floats) or 2 (nine) */
    const int32_t three = k_w == 3 && s == 1 && dil_w == 1;
    const int32_t three_by_two = k_w == 3 && s == 2 && dil_w == 1;
    int32_t ic, ky, kx, i;
    if (!inside_x) {
        memset(seg, 0, sizeof(float) * (size_t)span);
    }
    for (ic = 0; ic < g->c_in; ++ic) {
        const float *xc = x + (size_t)ic * in_plane;
        for (ky = 0; ky < k_h; ++ky) {
            const int32_t iy = iy0 + ky * dil_h;
            const float *r;
            if (iy < 0 || iy >= h_in) {
                memset(c, 0, sizeof(float) * MCU_F32_BLOCK_PX * (size_t)k_w);
                c += MCU_F32_BLOCK_PX * k_w;
                continue;
            }
            r = xc + (size_t)iy * w_in + ix0;
            if (!inside_x) {
                for (i = i_lo; i < i_hi; ++i) {
                    seg[i] = r[i];
                }
                r = seg;
            }
            if (three) {
                /* the six floats once, then the three taps' quads from them (GCC keeps them in core registers) */
                const float v0 = r[0], v1 = r[1], v2 = r[2], v3 = r[3], v4 = r[4], v5 = r[5];
                MCU_F32_STORE_THREE_TAPS(v0, v1, v2, v3, v1, v2, v3, v4, v2, v3, v4, v5);
            } else if (three_by_two) {
                /* likewise stride 2 across: nine floats, the taps' inputs every other one */
                const float v0 = r[0], v1 = r[1], v2 = r[2], v3 = r[3], v4 = r[4], v5 = r[5], v6 = r[6], v7 = r[7];
                const float v8 = r[8];
                MCU_F32_STORE_THREE_TAPS(v0, v2, v4, v6, v1, v3, v5, v7, v2, v4, v6, v8);
            } else if (s == 1) {
                for (kx = 0; kx < k_w; ++kx, c += MCU_F32_BLOCK_PX, r += dil_w) {
                    *(mcu_conv2d_f32_quad *)c = *(const mcu_conv2d_f32_quad *)r;
                }
            } else {
                for (kx = 0; kx < k_w; ++kx, c += MCU_F32_BLOCK_PX, r += dil_w) {
                    c[0] = r[0];
                    c[1] = r[s];
                    c[2] = r[2 * s];
                    c[3] = r[3 * s];
                }
            }
        }
    }
}

/* Image by image, block of MCU_F32_BLOCK_PX output pixels (row-major) by block: with a taps table, a full block in one
 * output row whose windows all lie inside the input, stride 1 across, is read in place (its pixels' inputs are side by
 * side); any other block gathers its columns into the scratch first (a last short block: zero columns, its outputs
 * past the last pixel dropped). Then every output channel of the block through the micro-kernel. */
MCU_F32_GEMM_SCHED void mcu_conv2d_f32_im2col(const mcu_conv2d_f32_params *p, const float *x, float *y,
                                                void *scratch)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t pixels = g->h_out * g->w_out;
    const int32_t k = g->c_in * g->k_h * g->k_w;
    const int32_t x_span = MCU_F32_BLOCK_PX - 1 + (g->k_w - 1) * g->dil_w;
    const int32_t y_span = (g->k_h - 1) * g->dil_h;
    float *col = (float *)scratch;
    int32_t n, px, j, t;
    for (n = 0; n < g->n; ++n) {
        const float *xn = x + (size_t)n * g->c_in * g->h_in * g->w_in;
        float *yn = y + (size_t)n * g->c_out * pixels;
        for (px = 0; px < pixels; px += MCU_F32_BLOCK_PX) {
            const int32_t n_px = pixels - px < MCU_F32_BLOCK_PX ? pixels - px : MCU_F32_BLOCK_PX;
            const int32_t oy = px / g->w_out, ox = px % g->w_out;
            const int32_t iy0 = oy * g->stride_h - g->pad_t, ix0 = ox * g->stride_w - g->pad_l;
            const int32_t one_row = n_px == MCU_F32_BLOCK_PX && ox + MCU_F32_BLOCK_PX <= g->w_out;
            if (one_row && p->taps && g->stride_w == 1 && ix0 >= 0 && ix0 + x_span < g->w_in && iy0 >= 0
                && iy0 + y_span < g->h_in) {
                const float *window = xn + (size_t)iy0 * g->w_in + ix0;
                if (g->k_w == 3 && g->dil_w == 1) {
                    mcu_conv2d_f32_columns(p, window, MCU_F32_IN_PLACE_ROWS, k, yn + px, (size_t)pixels, n_px);
                } else {
                    mcu_conv2d_f32_columns(p, window, 1, k, yn + px, (size_t)pixels, n_px);
                }
                continue;
            }
            if (one_row) {
                mcu_conv2d_f32_gather_row(g, xn, oy, ox, col, col + (size_t)MCU_F32_BLOCK_PX * k);
            } else {
                for (j = 0; j < MCU_F32_BLOCK_PX; ++j) {
                    if (j < n_px) {
                        mcu_conv2d_f32_gather(g, xn, (px + j) / g->w_out, (px + j) % g->w_out, col + j);
                    } else {
                        for (t = 0; t < k; ++t) {
                            col[t * MCU_F32_BLOCK_PX + j] = 0.0f;
                        }
                    }
                }
            }
            mcu_conv2d_f32_columns(p, col, 0, k, yn + px, (size_t)pixels, n_px);
        }
    }
}
