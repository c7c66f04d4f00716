#include "conv2d_s8_depthwise.h"
#include "conv2d_s8_dw.h"

/* Depthwise path of conv2d_s8 (group == c_in == c_out = C, channels-last, weights without zero points). Weights tap
 * by tap, the C channels of a tap contiguous (mcucomp/ops/conv2d_s8.py packed_weights). Every window runs from the
 * folded bias; a tap in the padding reads p->zrow (C bytes of x_zp), so every tap is one pointer from a per-pixel
 * table plus the channel, and no inner loop checks a border.
 *
 * Output pixels go in pairs (q, q + 1), row-major over N, H_out, W_out (a pair may span two rows): each weight word
 * is loaded and extended once for both pixels. Channels ascend (four at a time on DSP cores, then the C % 4 left one
 * by one); pixel q's outputs are written as soon as both windows' channels are read, pixel q + 1's are kept on the
 * stack and copied after the pair, so no write lands earlier than pixel by pixel would put it
 * (mcucomp/ops/_overlap.py depthwise_nhwc). With C above MCU_CONV2D_S8_DW_DEFER the pixels go one by one.
 *
 * DSP cores with an FPU, 3x3 windows, plain float requantization: the four-channel steps of a pair run in assembly
 * (mcu_conv2d_s8_dw_quads, requantization inside), and where a run of pairs in one output row has every window inside
 * the input (stride 1 or 2, undilated columns, C % 4 == 0) it takes no tables at all (the slide bodies; the schedule
 * is mirrored by mcucomp/ops/conv2d_s8.py depthwise_schedule for the cost terms). The order of reads and writes is
 * the pairs' above. */

/** The second pixel's c bytes from the stack. DSP cores (unaligned word stores): words, then the c % 4 left
 * (newlib-nano's memcpy goes byte by byte); elsewhere words when dst and c are word-aligned (a memcpy call costs
 * the Cortex-M0+ about 100 cycles for a few words), else memcpy. */
static void mcu_conv2d_s8_dw_copy(int8_t *dst, const int32_t *src, int32_t c)
{
    int32_t i = 0;
#if MCU_CONV2D_S8_DW_DSP
    for (; i + 4 <= c; i += 4, ++src) {
        memcpy(dst + i, src, 4);
    }
    if (i == c) { /* the library call below costs ~30 cycles even for no byte */
        return;
    }
#else
    if ((((uintptr_t)dst | (uintptr_t)c) & 3u) == 0) {
        uint32_t *d = (uint32_t *)(void *)dst; /* aligned, and int8 storage may be written through any type */
        for (; i < c / 4; ++i) {
            d[i] = (uint32_t)src[i];
        }
        return;
    }
#endif
    memcpy(dst + i, src, (size_t)(c - i)); /* src: word i / 4 (i = 0 off DSP cores) */
}

#if MCU_CONV2D_S8_DW_SLIDE
/** The fields of mcu_conv2d_s8_dw_quads' slide arguments that hold for the whole layer (per tensor: the scale four
 * times in scale4). */
static void mcu_conv2d_s8_dw_quads_setup(const mcu_conv2d_s8_params *p, const mcu_requant *rq,
                                         mcu_conv2d_s8_dw_quads_args *run, float scale4[4], int32_t *defer)
{
    run->kbias = p->kbias;
    if (rq->per_channel) {
        run->scale = rq->scale;
        run->scale_step = 4;
    } else {
        scale4[0] = scale4[1] = scale4[2] = scale4[3] = rq->scale[0];
        run->scale = scale4;
        run->scale_step = 0;
    }
    run->w = p->w;
    run->rs = p->g.dil_h * p->g.w_in * p->g.c_in;
    run->c = p->g.c_in;
    run->zp = rq->zp;
    run->clamp = mcu_conv2d_s8_dw_limits(rq, run->lims);
    run->defer = defer;
    run->copy = run->c;
    run->body = p->g.stride_w;
    run->x_step = 2 * p->g.stride_w * p->g.c_in;
}
#endif

/** The pixel-pair path (see the top of the file). */
static MCU_CONV2D_S8_DW_NOINLINE void mcu_conv2d_s8_dw_pairs(const mcu_conv2d_s8_params *p, const int8_t *x,
                                                             int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const mcu_requant rq = p->rq; /* a local copy: the int8 stores could alias p, which stops hoisting */
    const int32_t c = g->c_in, pixels = g->n * g->h_out * g->w_out, paired = c <= MCU_CONV2D_S8_DW_DEFER;
    const int32_t plain = p->rq_plain, taps = g->k_h * g->k_w;
    const size_t image = (size_t)g->h_in * g->w_in * c;
    const int8_t *tab[3 * MCU_CONV2D_S8_DW_TAPS];
    int32_t rel[MCU_CONV2D_S8_DW_TAPS], defer[MCU_CONV2D_S8_DW_DEFER / 4];
    int32_t q = 0, n = 0, oy = 0, ox = 0, ky, kx, i;
    int32_t copied = 0; /* the table body copies the second pixel itself (C % 4 == 0) */
#if MCU_CONV2D_S8_DW_SLIDE
    mcu_conv2d_s8_dw_quads_args run, table;
    float scale4[4];
    const int32_t slide = g->k_h == 3 && g->k_w == 3 && g->dil_w == 1 && plain && paired &&
                          mcu_conv2d_s8_dw_slide_c(c, g->stride_w);
    const int32_t tabled = taps == 9 && plain && c >= 4;
    mcu_conv2d_s8_dw_quads_setup(p, &rq, &run, scale4, defer);
    table = run;
    table.x = NULL;
    table.pairs = 1;
    table.w = tab;
    table.c = c & ~3;
    table.copy = c % 4 == 0 ? c : 0; /* C % 4 left: the C pair adds its channels to defer, then the C copy */
    table.body = 0;
    copied = tabled && table.copy > 0;
#endif
    for (ky = 0; ky < g->k_h; ++ky) {
        for (kx = 0; kx < g->k_w; ++kx) {
            rel[ky * g->k_w + kx] = (ky * g->dil_h * g->w_in + kx * g->dil_w) * c;
            tab[MCU_CONV2D_S8_DW_W + ky * g->k_w + kx] = p->w + (size_t)(ky * g->k_w + kx) * c;
        }
    }
    while (q < pixels) {
        const int32_t two = paired && q + 1 < pixels;
        int8_t *y0 = y + (size_t)q * c;
#if MCU_CONV2D_S8_DW_SLIDE
        if (slide) { /* the run of pairs from q in its row whose windows lie inside: mcu_conv2d_s8_dw_slide */
            const int32_t iy0 = oy * g->stride_h - g->pad_t, ix0 = ox * g->stride_w - g->pad_l;
            /* pair k's second window ends at input column ix0 + s * (2k + 1) + 2 */
            const int32_t by_out = (g->w_out - ox) / 2;
            const int32_t by_in = (g->w_in - 3 - ix0 + g->stride_w) / (2 * g->stride_w);
            run.pairs = iy0 >= 0 && iy0 + 2 * g->dil_h < g->h_in && ix0 >= 0 ? (by_out < by_in ? by_out : by_in) : 0;
            if (run.pairs > 0) {
                run.x = x + n * image + ((size_t)iy0 * g->w_in + ix0) * c;
                run.y = y0;
                mcu_conv2d_s8_dw_quads(&run);
                q += 2 * run.pairs;
                if ((ox += 2 * run.pairs) == g->w_out) {
                    ox = 0;
                    if (++oy == g->h_out) {
                        oy = 0;
                        ++n;
                    }
                }
                continue;
            }
        }
#endif
        for (i = 0; i <= two; ++i) { /* the pixels' tables; (n, oy, ox) steps to the next pixel */
            mcu_conv2d_s8_dw_table(p, x + n * image, oy * g->stride_h - g->pad_t, ox * g->stride_w - g->pad_l, rel,
                                   tab + i * MCU_CONV2D_S8_DW_TAPS);
            if (++ox == g->w_out) {
                ox = 0;
                if (++oy == g->h_out) {
                    oy = 0;
                    ++n;
                }
            }
        }
        if (two && !MCU_CONV2D_S8_DW_DSP && taps == 9) { /* ARMv6-M: the 3x3 instance unrolled */
            mcu_conv2d_s8_dw_pair(p, &rq, plain, tab, 9, y0, (int8_t *)defer, 0);
        } else if (two) {
            int32_t ch0 = 0;
#if MCU_CONV2D_S8_DW_SLIDE
            if (tabled) { /* the quads in assembly, the C % 4 left in C */
                table.y = y0;
                mcu_conv2d_s8_dw_quads(&table);
                ch0 = c & ~3;
            }
#endif
            if (ch0 < c) { /* its set-up costs ~50 cycles even with no channel left */
                mcu_conv2d_s8_dw_pair(p, &rq, plain, tab, taps, y0, (int8_t *)defer, ch0);
            }
        } else {
            mcu_conv2d_s8_dw_one(p, &rq, plain, tab, taps, y0);
        }
        if (two && !copied) {
            mcu_conv2d_s8_dw_copy(y0 + c, defer, c);
        }
        q += 1 + two;
    }
}

#if MCU_CONV2D_S8_DW_V6M
/* Output pixels in order for the ARMv6-M pair loop without multiplications or divisions: the window start (iy, ix)
 * and its byte offset `at` in x (images included; it may point outside x when the window reaches the padding). */
typedef struct {
    int32_t ox, oy, iy, ix, at;
} mcu_conv2d_s8_dw_cursor;

/** Step the cursor to the next output pixel (across rows and images); steps: the byte offsets of one pixel, of a row
 * end to the next row's start, and of an image end to the next image's start. */
static void mcu_conv2d_s8_dw_step(const mcu_conv_geom *g, mcu_conv2d_s8_dw_cursor *u, const int32_t steps[3])
{
    u->ix += g->stride_w;
    u->at += steps[0];
    if (++u->ox < g->w_out) {
        return;
    }
    u->ox = 0;
    u->ix = -g->pad_l;
    u->iy += g->stride_h;
    u->at += steps[1];
    if (++u->oy < g->h_out) {
        return;
    }
    u->oy = 0;
    u->iy = -g->pad_t;
    u->at += steps[2];
}

/** The nine taps of the 3x3 window at the cursor, pointers into x or zrow in the padding (tab[t]). */
static void mcu_conv2d_s8_dw_taps(const mcu_conv2d_s8_params *p, const int8_t *x, const mcu_conv2d_s8_dw_cursor *u,
                                  const int32_t *rel, const int8_t **tab)
{
    const mcu_conv_geom *g = &p->g;
    const int8_t *start = x + u->at;
    int32_t ky, kx, iy = u->iy;
    for (ky = 0; ky < 3; ++ky, iy += g->dil_h, tab += 3, rel += 3) {
        const int32_t row_in = iy >= 0 && iy < g->h_in;
        int32_t ix = u->ix;
        for (kx = 0; kx < 3; ++kx, ix += g->dil_w) {
            tab[kx] = row_in && ix >= 0 && ix < g->w_in ? start + rel[kx] : p->zrow;
        }
    }
}

/** The pixel-pair path on ARMv6-M for 3x3 windows, C <= MCU_CONV2D_S8_DW_DEFER, fixed mode with double rounding
 * and qmin <= zp <= qmax: the pairs in the same order and with the same deferred second pixel as
 * mcu_conv2d_s8_dw_pairs (deferred only when y overlaps x), each pair in assembly: two windows inside the input
 * from their starts (no tables), the others from tap tables; a lone last pixel from its table alone. */
static MCU_CONV2D_S8_DW_NOINLINE void mcu_conv2d_s8_dw_pairs_v6m(const mcu_conv2d_s8_params *p, const int8_t *x,
                                                                 int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t c = g->c_in, pixels = g->n * g->h_out * g->w_out;
    const size_t image = (size_t)g->h_in * g->w_in * c;
    const uintptr_t ya = (uintptr_t)y, xa = (uintptr_t)x; /* addresses: x and y may be different objects */
    const int32_t apart = ya + (size_t)pixels * c <= xa || xa + image * g->n <= ya;
    /* windows inside: iy in [0, ylast], ix in [0, xlast] (none when a bound is negative) */
    const int32_t ylast = g->h_in - 1 - 2 * g->dil_h, xlast = g->w_in - 1 - 2 * g->dil_w;
    const int32_t steps[3] = {g->stride_w * c, (g->stride_h * g->w_in - g->w_out * g->stride_w) * c,
                              (g->h_in - g->h_out * g->stride_h) * g->w_in * c};
    mcu_conv2d_s8_dw_v6m_args a;
    mcu_conv2d_s8_dw_cursor u;
    int32_t rel[9], defer[MCU_CONV2D_S8_DW_DEFER / 4];
    int32_t q, i, tables = 1; /* tables: a.tab[0 .. 17] hold tap tables */
    for (i = 0; i < 9; ++i) {
        rel[i] = (i / 3 * g->dil_h * g->w_in + i % 3 * g->dil_w) * c;
        a.tab[18 + i] = p->w + (size_t)i * c;
    }
    a.nlo = p->rq.zp - p->rq.qmin;
    a.hi = p->rq.qmax - p->rq.zp;
    a.zp = p->rq.zp;
    a.c = c;
    a.kbias = p->kbias;
    a.mult = p->rq.mult;
    a.shift = p->rq.shift;
    a.pcmask = -p->rq.per_channel;
    a.y1 = (int8_t *)defer;
    u.ox = u.oy = 0;
    u.iy = -g->pad_t;
    u.ix = -g->pad_l;
    u.at = (u.iy * g->w_in + u.ix) * c;
    for (q = 0; q < pixels; q += 2) {
        const mcu_conv2d_s8_dw_cursor u0 = u;
        a.y0 = y + (size_t)q * c;
        mcu_conv2d_s8_dw_step(g, &u, steps);
        if (q + 1 == pixels) { /* a lone last pixel */
            mcu_conv2d_s8_dw_taps(p, x, &u0, rel, a.tab);
            tables = 1;
            mcu_conv2d_s8_dw_one_v6m(&a);
            break;
        }
        if (apart) { /* y apart from x: pixel 1's outputs straight to their place */
            a.y1 = a.y0 + c;
        }
        if (ylast >= 0 && xlast >= 0 && (uint32_t)u0.iy <= (uint32_t)ylast && (uint32_t)u0.ix <= (uint32_t)xlast &&
            (uint32_t)u.iy <= (uint32_t)ylast && (uint32_t)u.ix <= (uint32_t)xlast) {
            if (tables) {
                for (i = 0; i < 9; ++i) {
                    a.tab[i] = x + rel[i];
                }
                tables = 0;
            }
            a.at = u0.at;
            a.d = u.at - u0.at;
            mcu_conv2d_s8_dw_pair_in_v6m(&a);
        } else {
            mcu_conv2d_s8_dw_taps(p, x, &u0, rel, a.tab);
            mcu_conv2d_s8_dw_taps(p, x, &u, rel, a.tab + 9);
            tables = 1;
            mcu_conv2d_s8_dw_pair_v6m(&a);
        }
        mcu_conv2d_s8_dw_step(g, &u, steps);
        if (!apart) {
            mcu_conv2d_s8_dw_copy(a.y0 + c, defer, c);
        }
    }
}
#endif

void mcu_conv2d_s8_depthwise(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch)
{
    (void)scratch;
#if MCU_CONV2D_S8_DW_V6M
    if (p->g.k_h == 3 && p->g.k_w == 3 && p->g.c_in <= MCU_CONV2D_S8_DW_DEFER && p->rq.mult != NULL &&
        !p->rq.single_round && p->rq.qmin <= p->rq.zp && p->rq.zp <= p->rq.qmax) {
        mcu_conv2d_s8_dw_pairs_v6m(p, x, y);
        return;
    }
#endif
    mcu_conv2d_s8_dw_pairs(p, x, y);
}
