#include "avgpool_s8.h"
#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif

/* The word-lane loops keep their own registers (inlined into the caller, GCC spills their step and bounds). */
#if defined(__GNUC__)
#define MCU_AVGPOOL_S8_OUTLINE __attribute__((noinline))
#else
#define MCU_AVGPOOL_S8_OUTLINE
#endif

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

/* The word at xp, 4-byte aligned. */
static inline uint32_t mcu_avgpool_s8_word(const int8_t *xp)
{
    uint32_t w;
#if defined(__GNUC__)
    memcpy(&w, __builtin_assume_aligned(xp, 4), 4); /* one LDR, also where unaligned loads fault (ARMv6-M) */
#else
    memcpy(&w, xp, 4);
#endif
    return w;
}

/* Add the four bytes of w to the lanes: bytes 0 and 2 to even, 1 and 3 to odd. */
static inline void mcu_avgpool_s8_lanes(uint32_t w, uint32_t *even, uint32_t *odd)
{
#if defined(__ARM_FEATURE_DSP)
    uint32_t rotated_sum;
    *even = __sxtab16(*even, w);
    /* SXTAB16 of w rotated by 8 in one instruction (GCC keeps a separate rotate for the intrinsic) */
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(rotated_sum) : "r"(*odd), "r"(w));
    *odd = rotated_sum;
#else
    w ^= 0x80808080u;
    *even += w & 0x00FF00FFu;
    *odd += (w >> 8) & 0x00FF00FFu;
#endif
}

/* Add the lanes' four channel sums of `count` words to sum[0..3] (channel k of the four in sum[k]). */
static inline void mcu_avgpool_s8_lane_sums(uint32_t even, uint32_t odd, int32_t count, int32_t sum[4])
{
#if defined(__ARM_FEATURE_DSP)
    (void)count;
    sum[0] += (int16_t)(even & 0xFFFFu);
    sum[1] += (int16_t)(odd & 0xFFFFu);
    sum[2] += (int16_t)(even >> 16);
    sum[3] += (int16_t)(odd >> 16);
#else
    sum[0] += (int32_t)(even & 0xFFFFu) - 128 * count;
    sum[1] += (int32_t)(odd & 0xFFFFu) - 128 * count;
    sum[2] += (int32_t)(even >> 16) - 128 * count;
    sum[3] += (int32_t)(odd >> 16) - 128 * count;
#endif
}

/* Add four channels' sums over `count` pixels `step` bytes apart from xp (4-byte aligned), count <= 256, to sum: the
 * bytes of each word summed in two 16-bit lanes (channels 0 and 2, 1 and 3), which cannot overflow in 256 pixels.
 * DSP cores add sign-extended bytes to the lanes (SXTAB16); the others offset the bytes to unsigned (x + 128) and
 * mask. */
static MCU_AVGPOOL_S8_OUTLINE void mcu_avgpool_s8_sum4(const int8_t *xp, size_t step, int32_t count, int32_t sum[4])
{
    uint32_t even = 0, odd = 0;
    int32_t i;
    for (i = 0; i + 2 <= count; i += 2, xp += 2 * step) { /* two pixels per iteration: half the loop overhead */
        mcu_avgpool_s8_lanes(mcu_avgpool_s8_word(xp), &even, &odd);
        mcu_avgpool_s8_lanes(mcu_avgpool_s8_word(xp + step), &even, &odd);
    }
    if (i < count) {
        mcu_avgpool_s8_lanes(mcu_avgpool_s8_word(xp), &even, &odd);
    }
    mcu_avgpool_s8_lane_sums(even, odd, count, sum);
}

/* Channels whose sums are requantized together (one mcu_requant_row call: its mode and range decided once). */
#define MCU_AVGPOOL_S8_BLOCK 32

/* Whole-image window, channels-last (c_in a multiple of 4, x 4-byte aligned), integer sum: four channels at a time
 * over every pixel in chunks of 256 (mcu_avgpool_s8_sum4), requantized by blocks of channels. An image's outputs of
 * a block are written after all its pixels of those channels are read, which the per-channel order allows (the
 * overlap margin's proof): the later reads are of later channels. */
static void mcu_avgpool_s8_global_nhwc(const mcu_avgpool_s8_params *p, const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t pixels = g->h_in * g->w_in, c_in = g->c_in, zp_total = pixels * p->x_zp;
    int32_t sum[MCU_AVGPOOL_S8_BLOCK];
    int32_t n, c0, c, done, block;
    for (n = 0; n < g->n; ++n, x += (size_t)pixels * c_in, y += c_in) {
        for (c0 = 0; c0 < c_in; c0 += block) {
            block = c_in - c0 < MCU_AVGPOOL_S8_BLOCK ? c_in - c0 : MCU_AVGPOOL_S8_BLOCK;
            for (c = 0; c < block; c += 4) {
                sum[c] = sum[c + 1] = sum[c + 2] = sum[c + 3] = -zp_total;
                for (done = 0; done < pixels; done += 256) {
                    mcu_avgpool_s8_sum4(x + (size_t)done * c_in + c0 + c, (size_t)c_in,
                                        pixels - done < 256 ? pixels - done : 256, sum + c);
                }
            }
            mcu_requant_row(&p->rq, sum, block, pixels, 0, y + c0, 1);
        }
    }
}

/* The taps [lo, hi) of a kernel dim of k taps dil apart from input coordinate start that fall inside [0, len), and
 * (the return value) how many fall inside the input padded by pad_end at its end. Inside taps are consecutive. */
static int32_t mcu_avgpool_s8_tap_range(int32_t start, int32_t k, int32_t dil, int32_t len, int32_t pad_end,
                                        int32_t *lo, int32_t *hi)
{
    int32_t t, padded = 0;
    *lo = k;
    *hi = 0;
    for (t = 0; t < k; ++t) {
        const int32_t i = start + t * dil;
        padded += i < len + pad_end;
        if (i >= 0 && i < len) {
            *lo = t < *lo ? t : *lo;
            *hi = t + 1;
        }
    }
    *lo = *lo < *hi ? *lo : *hi;
    return padded;
}

/* Integer windows channels-last (WINDOW_INT, and GLOBAL_INT windows the whole-image path does not take): per output
 * pixel, the inside taps and the divisor once, then every channel's sum over those taps with no bounds checks, four
 * channels per word where c_in is a multiple of 4, x is 4-byte aligned and a window has at most 256 taps (the word
 * lanes). Pixel by pixel, a pixel's channels in order, each written after its taps are read (the overlap margin's
 * order). */
static void mcu_avgpool_s8_window_int_nhwc(const mcu_avgpool_s8_params *p, const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t c_in = g->c_in;
    const size_t row_step = (size_t)g->w_in * (size_t)c_in, dy = (size_t)g->dil_h * row_step,
                 dx = (size_t)g->dil_w * (size_t)c_in;
    const int words = (c_in & 3) == 0 && ((uintptr_t)x & 3u) == 0 && g->k_h * g->k_w <= 256;
    int32_t sum[MCU_AVGPOOL_S8_BLOCK];
    int32_t n, oy, ox, c0, c, ky, kx, block;
    for (n = 0; n < g->n; ++n) {
        const int8_t *xn = x + (size_t)n * g->h_in * row_step;
        for (oy = 0; oy < g->h_out; ++oy) {
            for (ox = 0; ox < g->w_out; ++ox, y += c_in) {
                const int32_t y0 = oy * g->stride_h - g->pad_t, x0 = ox * g->stride_w - g->pad_l;
                int32_t ky0, ky1, kx0, kx1, rows, cols, taps, count, zp_total;
                const int32_t rows_padded = mcu_avgpool_s8_tap_range(y0, g->k_h, g->dil_h, g->h_in, p->pad_b, &ky0,
                                                                     &ky1);
                const int32_t cols_padded = mcu_avgpool_s8_tap_range(x0, g->k_w, g->dil_w, g->w_in, p->pad_r, &kx0,
                                                                     &kx1);
                const int8_t *win = xn;
                rows = ky1 - ky0;
                cols = kx1 - kx0;
                taps = rows * cols;
                count = p->count_mode == MCU_AVGPOOL_S8_COUNT_KERNEL ? g->k_h * g->k_w
                        : p->count_mode == MCU_AVGPOOL_S8_COUNT_PADDED ? rows_padded * cols_padded
                                                                       : taps;
                zp_total = taps * p->x_zp;
                if (taps > 0) {
                    win = xn + (size_t)(y0 + ky0 * g->dil_h) * row_step + (size_t)(x0 + kx0 * g->dil_w) * c_in;
                }
                for (c0 = 0; c0 < c_in; c0 += block) {
                    block = c_in - c0 < MCU_AVGPOOL_S8_BLOCK ? c_in - c0 : MCU_AVGPOOL_S8_BLOCK;
                    for (c = 0; c < block; ++c) {
                        sum[c] = -zp_total;
                    }
                    c = 0;
                    if (words && taps > 0) {
                        for (; c < block; c += 4) {
                            uint32_t even = 0, odd = 0;
                            for (ky = 0; ky < rows; ++ky) {
                                for (kx = 0; kx < cols; ++kx) {
                                    mcu_avgpool_s8_lanes(mcu_avgpool_s8_word(win + ky * dy + kx * dx + c0 + c), &even,
                                                         &odd);
                                }
                            }
                            mcu_avgpool_s8_lane_sums(even, odd, taps, sum + c);
                        }
                    }
                    for (; c < block; ++c) {
                        for (ky = 0; ky < rows; ++ky) {
                            for (kx = 0; kx < cols; ++kx) {
                                sum[c] += win[ky * dy + kx * dx + c0 + c];
                            }
                        }
                    }
                    mcu_requant_row(&p->rq, sum, block, count, 0, y + c0, 1); /* the entry of this divisor */
                }
            }
        }
    }
}

/** Whether the window is the whole image (one output pixel, no padding, no dilation): mcu_avgpool_s8_global_nhwc. */
static int mcu_avgpool_s8_is_global(const mcu_conv_geom *g)
{
    return g->h_out == 1 && g->w_out == 1 && g->k_h == g->h_in && g->k_w == g->w_in && g->pad_t == 0 &&
           g->pad_l == 0 && g->dil_h == 1 && g->dil_w == 1;
}

void mcu_avgpool_s8(const mcu_avgpool_s8_params *p, const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const size_t plane_in = (size_t)g->h_in * g->w_in, plane_out = (size_t)g->h_out * g->w_out;
    int32_t n, c, oy, ox;
    if (p->channels_last && p->mode == MCU_AVGPOOL_S8_GLOBAL_INT && mcu_avgpool_s8_is_global(g) && p->pad_b == 0 &&
        p->pad_r == 0 && (g->c_in & 3) == 0 && ((uintptr_t)x & 3u) == 0) {
        mcu_avgpool_s8_global_nhwc(p, x, y);
        return;
    }
    if (p->channels_last && p->mode != MCU_AVGPOOL_S8_FLOAT) {
        mcu_avgpool_s8_window_int_nhwc(p, x, y);
        return;
    }
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
