#include "conv2d_s8_dw.h"

#if defined(__ARM_FEATURE_DSP)
/** One depthwise tap for four adjacent channels: acc[c] += x[c] * w[c], c = 0..3 (lanes of SXTB16, SMLAxy). */
static inline void mcu_conv2d_s8_dw_tap4(const int8_t *xt, const int8_t *wt, int32_t acc[4])
{
    const int32_t xv = mcu_conv2d_s8_load4(xt), wv = mcu_conv2d_s8_load4(wt);
    const int32_t xe = __sxtb16(xv), xo = mcu_conv2d_s8_odd(xv), we = __sxtb16(wv), wo = mcu_conv2d_s8_odd(wv);
    acc[0] = __smlabb(xe, we, acc[0]);
    acc[1] = __smlabb(xo, wo, acc[1]);
    acc[2] = __smlatt(xe, we, acc[2]);
    acc[3] = __smlatt(xo, wo, acc[3]);
}

/** One depthwise tap in the padding for four adjacent channels: acc[c] += x_zp * w[c] (zz: x_zp in the bottom
 * lane). */
static inline void mcu_conv2d_s8_dw_pad4(int32_t zz, const int8_t *wt, int32_t acc[4])
{
    const int32_t wv = mcu_conv2d_s8_load4(wt);
    const int32_t we = __sxtb16(wv), wo = mcu_conv2d_s8_odd(wv);
    acc[0] = __smlabb(zz, we, acc[0]);
    acc[1] = __smlabb(zz, wo, acc[1]);
    acc[2] = __smlabt(zz, we, acc[2]);
    acc[3] = __smlabt(zz, wo, acc[3]);
}
#endif

/* Depthwise border windows of at most this many taps get a per-pixel table of tap offsets
 * (mcu_conv2d_s8_dw_offsets). */
#define MCU_CONV2D_S8_DW_TAPS 25

/** off[t]: offset from the image xw of tap t's first channel, -1 for a tap in the padding (kernel-row-major). */
static void mcu_conv2d_s8_dw_offsets(const mcu_conv_geom *g, const int32_t win[6], int32_t *off)
{
    int32_t ky, kx;
    for (ky = 0; ky < g->k_h; ++ky) {
        const int32_t row = (win[0] + ky * g->dil_h) * g->w_in + win[1];
        for (kx = 0; kx < g->k_w; ++kx) {
            const int32_t inside = ky >= win[2] && ky < win[3] && kx >= win[4] && kx < win[5];
            *off++ = inside ? (row + kx * g->dil_w) * g->c_in : -1;
        }
    }
}

#if defined(__ARM_FEATURE_DSP)
/* Four channels (ch .. ch + 3) of one depthwise output pixel on DSP cores; wt: their weight block, four per tap;
 * off: the border window's tap offsets (mcu_conv2d_s8_dw_offsets), or NULL. */
static void mcu_conv2d_s8_dw_quad(const mcu_conv2d_s8_params *p, const int8_t *xw, const int8_t *wt, int32_t ch,
                                  const int32_t win[6], const int32_t *off, int8_t *yp, const mcu_requant *rq,
                                  int32_t plain)
{
    const mcu_conv_geom *g = &p->g;
    const size_t c = (size_t)g->c_in;
    int32_t acc[4], ky, kx;
    acc[0] = p->kbias[ch];
    acc[1] = p->kbias[ch + 1];
    acc[2] = p->kbias[ch + 2];
    acc[3] = p->kbias[ch + 3];
    if (win[2] == 0 && win[3] == g->k_h && win[4] == 0 && win[5] == g->k_w && g->k_w == 3) {
        /* inside the input, three taps a row: no checks, one row per iteration */
        const size_t rs = (size_t)g->dil_h * g->w_in * c, cs = (size_t)g->dil_w * c;
        const int8_t *xr = xw + ((size_t)win[0] * g->w_in + win[1]) * c + ch;
        for (ky = 0; ky < g->k_h; ++ky, xr += rs, wt += 12) {
            mcu_conv2d_s8_dw_tap4(xr, wt, acc);
            mcu_conv2d_s8_dw_tap4(xr + cs, wt + 4, acc);
            mcu_conv2d_s8_dw_tap4(xr + 2 * cs, wt + 8, acc);
        }
    } else if (off != NULL) { /* border window: one table entry per tap, no index arithmetic */
        const int32_t zz = (int32_t)((uint32_t)p->x_zp & 0xffffu), taps = g->k_h * g->k_w;
        const int8_t *xc = xw + ch;
        for (ky = 0; ky < taps; ++ky, wt += 4) {
            if (off[ky] >= 0) {
                mcu_conv2d_s8_dw_tap4(xc + off[ky], wt, acc);
            } else {
                mcu_conv2d_s8_dw_pad4(zz, wt, acc);
            }
        }
    } else {
        const int32_t zz = (int32_t)((uint32_t)p->x_zp & 0xffffu); /* x_zp in the bottom lane */
        for (ky = 0; ky < g->k_h; ++ky) {
            const int32_t iy = win[0] + ky * g->dil_h;
            for (kx = 0; kx < g->k_w; ++kx, wt += 4) {
                if (ky >= win[2] && ky < win[3] && kx >= win[4] && kx < win[5]) {
                    mcu_conv2d_s8_dw_tap4(xw + ((size_t)iy * g->w_in + win[1] + kx * g->dil_w) * c + ch, wt, acc);
                } else {
                    mcu_conv2d_s8_dw_pad4(zz, wt, acc);
                }
            }
        }
    }
    yp[ch] = mcu_conv2d_s8_requant(rq, plain, acc[0], ch);
    yp[ch + 1] = mcu_conv2d_s8_requant(rq, plain, acc[1], ch + 1);
    yp[ch + 2] = mcu_conv2d_s8_requant(rq, plain, acc[2], ch + 2);
    yp[ch + 3] = mcu_conv2d_s8_requant(rq, plain, acc[3], ch + 3);
}
#endif

/* Depthwise path. Weights in blocks of four channels (the last block holds c % 4 when that is not 0), each block
 * tap by tap with its channels innermost. Output pixels in row-major order, channels ascending within a pixel, each
 * output written after its window is read (mcucomp/ops/_overlap.py depthwise_nhwc). Every window runs from the
 * folded bias, taps in the padding as x_zp; four channels at a time on DSP cores, one at a time elsewhere (and for
 * the last c % 4). w_zp is NULL (weights with zero points take the general path). */
void mcu_conv2d_s8_dw(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const mcu_requant rq = p->rq;
    const int32_t c = g->c_in, plane = g->h_out * g->w_out, pixels = g->n * plane, taps = g->k_h * g->k_w;
    const int32_t plain = mcu_requant_is_plain(&rq, c);
    const int32_t zp = p->x_zp;
    int32_t q, win[6]; /* window start y, x; valid kernel rows lo, hi; valid kernel columns lo, hi */
    int32_t off[MCU_CONV2D_S8_DW_TAPS];
    for (q = 0; q < pixels; ++q) {
        const int32_t n = q / plane, r = q % plane;
        const int8_t *xw = x + (size_t)n * g->h_in * g->w_in * c; /* the image */
        int8_t *yp = y + (size_t)q * c;
        win[0] = (r / g->w_out) * g->stride_h - g->pad_t;
        win[1] = (r % g->w_out) * g->stride_w - g->pad_l;
        int32_t ch = 0, ky, kx, border, tabled;
        mcu_conv2d_s8_valid_taps(win[0], g->h_in, g->k_h, g->dil_h, &win[2], &win[3]);
        mcu_conv2d_s8_valid_taps(win[1], g->w_in, g->k_w, g->dil_w, &win[4], &win[5]);
        border = !(win[2] == 0 && win[3] == g->k_h && win[4] == 0 && win[5] == g->k_w);
        tabled = border && taps <= MCU_CONV2D_S8_DW_TAPS;
        if (tabled) {
            mcu_conv2d_s8_dw_offsets(g, win, off);
        }
#if defined(__ARM_FEATURE_DSP)
        for (; ch + 4 <= c; ch += 4) {
            mcu_conv2d_s8_dw_quad(p, xw, p->w + (size_t)ch * taps, ch, win, tabled ? off : NULL, yp, &rq, plain);
        }
#endif
        if (!border) {
            /* inside the input: pointer steps only (ARMv6-M: LDRSB with a register offset, few live values) */
            const size_t rs = (size_t)g->dil_h * g->w_in * c, cs = (size_t)g->dil_w * c;
            for (; ch < c; ++ch) {
                const int32_t block = ch & ~3, width = c - block < 4 ? c - block : 4;
                const int8_t *wt = p->w + (size_t)block * taps + (ch - block);
                const int8_t *xr = xw + ((size_t)win[0] * g->w_in + win[1]) * c + ch;
                int32_t acc = p->kbias[ch];
                for (ky = 0; ky < g->k_h; ++ky, xr += rs) {
                    const int8_t *xt = xr;
                    for (kx = 0; kx < g->k_w; ++kx, xt += cs, wt += width) {
                        acc += *xt * *wt;
                    }
                }
                yp[ch] = mcu_conv2d_s8_requant(&rq, plain, acc, ch);
            }
            continue;
        }
        for (; tabled && ch < c; ++ch) { /* border window: one table entry per tap */
            const int32_t block = ch & ~3, width = c - block < 4 ? c - block : 4;
            const int8_t *wt = p->w + (size_t)block * taps + (ch - block), *xc = xw + ch;
            int32_t acc = p->kbias[ch];
            for (kx = 0; kx < taps; ++kx, wt += width) {
                acc += (off[kx] >= 0 ? xc[off[kx]] : zp) * *wt;
            }
            yp[ch] = mcu_conv2d_s8_requant(&rq, plain, acc, ch);
        }
        for (; ch < c; ++ch) {
            const int32_t block = ch & ~3, width = c - block < 4 ? c - block : 4;
            const int8_t *wt = p->w + (size_t)block * taps + (ch - block);
            int32_t acc = p->kbias[ch];
            for (ky = 0; ky < g->k_h; ++ky) {
                const int32_t iy = win[0] + ky * g->dil_h;
                for (kx = 0; kx < g->k_w; ++kx, wt += width) {
                    const int32_t inside = ky >= win[2] && ky < win[3] && kx >= win[4] && kx < win[5];
                    acc += (inside ? xw[((size_t)iy * g->w_in + win[1] + kx * g->dil_w) * c + ch] : p->x_zp) * wt[0];
                }
            }
            yp[ch] = mcu_conv2d_s8_requant(&rq, plain, acc, ch);
        }
    }
}
