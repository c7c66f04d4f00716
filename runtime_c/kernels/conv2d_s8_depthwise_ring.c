#include "conv2d_s8_depthwise_ring.h"
#include "conv2d_s8_dw.h"

/* The in-place variant (MCU_CONV2D_S8_DEPTHWISE_RING; y at x, stride 1, output grid == input grid, n * H * W pixels
 * row-major): blocks of four channels (the last holds C % 4), one block over every pixel before the next, pixel q's
 * block written over its own input bytes. A window reads input pixels from q - L on (L = pad_t * W + pad_l, below
 * MCU_CONV2D_S8_DW_RING, a power of two); those below q are already overwritten, so before writing pixel q the
 * block's input bytes of q go to a ring on the stack (slots q % MCU_CONV2D_S8_DW_RING and that plus
 * MCU_CONV2D_S8_DW_RING: the second copy keeps the window's ring taps at fixed offsets from the upper slot of q)
 * and every read of a pixel below q comes from there (mcucomp/ops/_overlap.py depthwise_ring; y may also lie apart
 * from x). Slower than the pixel-pair path; the planner takes it only where that path's overlap margin would grow
 * the arena. */
#define MCU_CONV2D_S8_DW_RING 64

/** tab[t]: where tap t of pixel q's window (first tap at input (iy0, ix0) of the image starting at pixel `image`)
 * finds block b: the ring slot for an input pixel below q, else x, or zrow in the padding. */
static void mcu_conv2d_s8_dw_ring_table(const mcu_conv2d_s8_params *p, const int8_t *x, const int8_t *ring,
                                        int32_t b, int32_t q, int32_t image, int32_t iy0, int32_t ix0,
                                        const int8_t **tab)
{
    const mcu_conv_geom *g = &p->g;
    int32_t ky, kx;
    for (ky = 0; ky < g->k_h; ++ky) {
        const int32_t iy = iy0 + ky * g->dil_h, row_in = iy >= 0 && iy < g->h_in;
        for (kx = 0; kx < g->k_w; ++kx) {
            const int32_t ix = ix0 + kx * g->dil_w, at = image + iy * g->w_in + ix;
            *tab++ = !row_in || ix < 0 || ix >= g->w_in ? p->zrow + b
                     : at < q ? ring + (at & (MCU_CONV2D_S8_DW_RING - 1)) * 4 : x + (size_t)at * g->c_in + b;
        }
    }
}

#if MCU_CONV2D_S8_DW_SLIDE
/* DSP cores, plain float requantization, 3x3 windows with pads of 1 and no dilation (the ring variant's common
 * case): a block's rows are staged instead of going through the pixel ring. Before output row oy is written, input
 * row oy + 1's block words go to a row buffer; rows oy - 1 and oy are already there, so row oy's pixel pairs read
 * their windows from three buffers of words (a zero-point word at each end: no border windows, and a third one
 * read by the pair of a lone last pixel) and may overwrite row oy of x. */
#define MCU_CONV2D_S8_DW_ROW_WORDS 64
typedef char mcu_conv2d_s8_dw_ring_fits_rows[3 * MCU_CONV2D_S8_DW_ROW_WORDS >= 2 * MCU_CONV2D_S8_DW_RING ? 1 : -1];

/** True when mcu_conv2d_s8_dw_ring_rows runs this layer's full blocks (mcucomp/ops/conv2d_s8.py ring_terms). */
static int32_t mcu_conv2d_s8_dw_rows_fit(const mcu_conv2d_s8_params *p)
{
    const mcu_conv_geom *g = &p->g;
    return p->rq_plain && g->k_h == 3 && g->k_w == 3 && g->dil_h == 1 && g->dil_w == 1 && g->pad_t == 1 &&
           g->pad_l == 1 && g->w_in + 3 <= MCU_CONV2D_S8_DW_ROW_WORDS;
}

/** A row's w block words from src (c bytes apart) to dst, two a turn (the loads pipeline). */
static void mcu_conv2d_s8_dw_stage(uint32_t *dst, const int8_t *src, int32_t w, int32_t c)
{
    int32_t i;
    for (i = 0; i + 2 <= w; i += 2, src += 2 * c) {
        const uint32_t v0 = (uint32_t)mcu_conv2d_s8_load4(src), v1 = (uint32_t)mcu_conv2d_s8_load4(src + c);
        dst[i] = v0;
        dst[i + 1] = v1;
    }
    if (i < w) {
        dst[i] = (uint32_t)mcu_conv2d_s8_load4(src);
    }
}

/** Block b (four channels) of every pixel, row by row through the staged rows (see above) in rows (the caller's
 * pixel ring: the two never run at once, and the frames' sum is the kernel's stack figure). */
static MCU_CONV2D_S8_DW_NOINLINE void mcu_conv2d_s8_dw_ring_rows(const mcu_conv2d_s8_params *p, const int8_t *x,
                                                                 int8_t *y, int32_t b,
                                                                 uint32_t rows[3 * MCU_CONV2D_S8_DW_ROW_WORDS])
{
    const mcu_conv_geom *g = &p->g;
    const int32_t c = g->c_in, w = g->w_in, h = g->h_in, words = w + 3;
    const size_t row_bytes = (size_t)w * c;
    mcu_conv2d_s8_dw_rows_args run;
    int32_t n, i, t, k;
    memcpy(&run.zp4, p->zrow + b, 4);
    run.rows = (uint8_t *)rows;
    run.c = c;
    run.kbias = p->kbias + b;
    run.w = w;
    run.zp = p->rq.zp;
    run.clamp = mcu_conv2d_s8_dw_limits(&p->rq, run.lims);
    run.row_bytes = (int32_t)row_bytes;
    for (t = 0; t < 9; ++t) {
        const int32_t wv = mcu_conv2d_s8_load4(p->w + (size_t)t * c + b);
        run.ws[2 * t] = __sxtb16(wv);
        run.ws[2 * t + 1] = mcu_conv2d_s8_odd(wv);
    }
    for (k = 0; k < 4; ++k) {
        run.scale[k] = p->rq.scale[p->rq.per_channel ? b + k : 0];
    }
    for (n = 0; n < g->n; ++n) {
        const int8_t *xi = x + (size_t)n * h * row_bytes + b;
        for (i = 0; i < 3 * words; ++i) { /* the row above row 0 and every padding word */
            rows[i] = run.zp4;
        }
        mcu_conv2d_s8_dw_stage(rows + words + 1, xi, w, c); /* row 0 */
        run.prev = 0;
        run.cur = 4 * words;
        run.next = 8 * words;
        run.h = h;
        run.x_next = xi + row_bytes;
        run.y_row = y + (size_t)n * h * row_bytes + b;
        mcu_conv2d_s8_dw_rows(&run);
    }
}
#endif

/** The in-place variant (see above). */
void mcu_conv2d_s8_depthwise_ring(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch)
{
    const mcu_conv_geom *g = &p->g;
    const mcu_requant rq = p->rq;
    const int32_t c = g->c_in, plain = p->rq_plain, plane = g->h_in * g->w_in;
    const int32_t taps = g->k_h * g->k_w;
    const int8_t *tab[MCU_CONV2D_S8_DW_TAPS];
#if MCU_CONV2D_S8_DW_SLIDE
    uint32_t rows[3 * MCU_CONV2D_S8_DW_ROW_WORDS]; /* the staged rows, or the pixel ring in its first bytes */
    int8_t *const ring = (int8_t *)rows;
#else
    int8_t ring[2 * MCU_CONV2D_S8_DW_RING * 4];
#endif
    (void)scratch;
    int32_t b, n, oy, ox, k, t;
#if defined(__ARM_FEATURE_DSP)
    const int32_t step = rq.per_channel ? 1 : 0, last_row = (g->k_h - 1) * g->dil_h, last_col = (g->k_w - 1) * g->dil_w;
    uint32_t lims[2];
    const int32_t clamp = mcu_conv2d_s8_dw_limits(&rq, lims);
    int32_t rel[MCU_CONV2D_S8_DW_TAPS], ring_taps = 0, acc4[4];
#if MCU_CONV2D_S8_DW_SLIDE
    const int32_t rows_fit = mcu_conv2d_s8_dw_rows_fit(p);
#endif
    /* a window inside the input: tap t reads input pixel q + d(t), d rising with t; the taps below q (a prefix)
     * come from the ring, 4 bytes a pixel, the others from x, c bytes a pixel */
    for (t = 0; t < taps; ++t) {
        const int32_t d = (t / g->k_w * g->dil_h - g->pad_t) * g->w_in + t % g->k_w * g->dil_w - g->pad_l;
        ring_taps += d < 0;
        rel[t] = d < 0 ? d * 4 : d * c;
    }
#endif
    for (b = 0; b < c; b += 4) {
        const int32_t wd = c - b < 4 ? c - b : 4;
#if MCU_CONV2D_S8_DW_SLIDE
        if (wd == 4 && rows_fit) {
            mcu_conv2d_s8_dw_ring_rows(p, x, y, b, rows);
            continue;
        }
#endif
        for (n = 0; n < g->n; ++n) {
            for (oy = 0; oy < g->h_out; ++oy) {
                for (ox = 0; ox < g->w_out; ++ox) {
                    const int32_t q = n * plane + oy * g->w_in + ox;
                    const int8_t *w = p->w + b, *xq = x + (size_t)q * c + b;
                    int8_t *slot = ring + (q & (MCU_CONV2D_S8_DW_RING - 1)) * 4;
                    const int32_t iy0 = oy - g->pad_t, ix0 = ox - g->pad_l;
                    int32_t acc[4];
#if defined(__ARM_FEATURE_DSP)
                    if (wd == 4) { /* its own accumulators: constant indices keep them in registers */
                        const int8_t *ringq = slot + MCU_CONV2D_S8_DW_RING * 4;
                        uint32_t v;
                        acc4[0] = p->kbias[b];
                        acc4[1] = p->kbias[b + 1];
                        acc4[2] = p->kbias[b + 2];
                        acc4[3] = p->kbias[b + 3];
                        if (iy0 >= 0 && ix0 >= 0 && iy0 + last_row < g->h_in && ix0 + last_col < g->w_in) {
                            /* inside: the ring taps (a prefix) at fixed offsets from ringq, the others from xq */
                            for (t = 0; t < taps; ++t, w += c) {
                                const int32_t wv = mcu_conv2d_s8_load4(w);
                                const int32_t xv = mcu_conv2d_s8_load4((t < ring_taps ? ringq : xq) + rel[t]);
                                mcu_conv2d_s8_dw_mac4(xv, __sxtb16(wv), mcu_conv2d_s8_odd(wv), acc4);
                            }
                        } else {
                            mcu_conv2d_s8_dw_ring_table(p, x, ring, b, q, n * plane, iy0, ix0, tab);
                            for (t = 0; t < taps; ++t, w += c) {
                                const int32_t wv = mcu_conv2d_s8_load4(w);
                                mcu_conv2d_s8_dw_mac4(mcu_conv2d_s8_load4(tab[t]), __sxtb16(wv),
                                                      mcu_conv2d_s8_odd(wv), acc4);
                            }
                        }
                        memcpy(slot, xq, 4);
                        memcpy(slot + MCU_CONV2D_S8_DW_RING * 4, xq, 4);
                        v = mcu_conv2d_s8_dw_pack(&rq, plain, clamp, b, rq.scale + b * step, step, lims, acc4[0],
                                                  acc4[1], acc4[2], acc4[3]);
                        memcpy(y + (size_t)q * c + b, &v, 4);
                        continue;
                    }
#endif
                    mcu_conv2d_s8_dw_ring_table(p, x, ring, b, q, n * plane, iy0, ix0, tab);
                    for (k = 0; k < wd; ++k) {
                        acc[k] = p->kbias[b + k];
                    }
                    for (t = 0; t < taps; ++t, w += c) {
                        for (k = 0; k < wd; ++k) {
                            acc[k] += tab[t][k] * w[k];
                        }
                    }
                    memcpy(slot, xq, (size_t)wd);
                    memcpy(slot + MCU_CONV2D_S8_DW_RING * 4, xq, (size_t)wd);
                    for (k = 0; k < wd; ++k) {
                        y[(size_t)q * c + b + k] = mcu_conv2d_s8_requant(&rq, plain, acc[k], b + k);
                    }
                }
            }
        }
    }
}
