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
 * (mcucomp/ops/_overlap.py depthwise_nhwc). With C above MCU_CONV2D_S8_DW_DEFER the pixels go one by one. */

/* Most taps of a window (the per-pixel tables; mcucomp/ops/conv2d_s8.py DW_TAPS: larger kernels take the general
 * path), and most channels of a pair (the second pixel's outputs on the stack). */
#define MCU_CONV2D_S8_DW_TAPS 25
#define MCU_CONV2D_S8_DW_DEFER 256

#if defined(__GNUC__)
#define MCU_CONV2D_S8_DW_NOINLINE __attribute__((noinline))
#else
#define MCU_CONV2D_S8_DW_NOINLINE
#endif

/* The pair's tap loops are unrolled for 3x3 windows (nine taps, the tables read at fixed offsets); other windows
 * and lone pixels take the rolled loops (less code). */
#if defined(__GNUC__) && !defined(__clang__)
#define MCU_CONV2D_S8_DW_UNROLL _Pragma("GCC unroll 9")
#else
#define MCU_CONV2D_S8_DW_UNROLL
#endif
/* ARMv6-M: the one-channel loops are the main loops, unrolled (the pair called with a constant 9 for 3x3 windows);
 * on DSP cores they only run the C % 4 left. */
#if defined(__ARM_FEATURE_DSP)
#define MCU_CONV2D_S8_DW_DSP 1
#define MCU_CONV2D_S8_DW_UNROLL_SCALAR
#else
#define MCU_CONV2D_S8_DW_DSP 0
#define MCU_CONV2D_S8_DW_UNROLL_SCALAR MCU_CONV2D_S8_DW_UNROLL
#endif

/** tab[t]: tap t's channel 0 in the window starting at input (iy0, ix0) of image xi (kernel-row-major), or p->zrow
 * for a tap in the padding. rel: the taps' offsets from the window start (used when the window is inside). */
static void mcu_conv2d_s8_dw_table(const mcu_conv2d_s8_params *p, const int8_t *xi, int32_t iy0, int32_t ix0,
                                   const int32_t *rel, const int8_t **tab)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t c = g->c_in, taps = g->k_h * g->k_w;
    int32_t ky, kx, t;
    if (iy0 >= 0 && ix0 >= 0 && iy0 + (g->k_h - 1) * g->dil_h < g->h_in &&
        ix0 + (g->k_w - 1) * g->dil_w < g->w_in) {
        const int8_t *start = xi + ((size_t)iy0 * g->w_in + ix0) * c;
        for (t = 0; t < taps; ++t) {
            tab[t] = start + rel[t];
        }
        return;
    }
    for (ky = 0; ky < g->k_h; ++ky) {
        const int32_t iy = iy0 + ky * g->dil_h, row_in = iy >= 0 && iy < g->h_in;
        for (kx = 0; kx < g->k_w; ++kx) {
            const int32_t ix = ix0 + kx * g->dil_w;
            *tab++ = row_in && ix >= 0 && ix < g->w_in ? xi + ((size_t)iy * g->w_in + ix) * c : p->zrow;
        }
    }
}

#if defined(__ARM_FEATURE_DSP)
/** acc[c] += x[c] * w[c] for four channels: x split into lanes (0, 2) and (1, 3) by SXTB16, the weights' lanes we, wo
 * (SMLABB / SMLATT). */
static MCU_CONV2D_S8_INLINE void mcu_conv2d_s8_dw_mac4(int32_t x, int32_t we, int32_t wo, int32_t acc[4])
{
    const int32_t xe = __sxtb16(x), xo = mcu_conv2d_s8_odd(x);
    acc[0] = __smlabb(xe, we, acc[0]);
    acc[1] = __smlabb(xo, wo, acc[1]);
    acc[2] = __smlatt(xe, we, acc[2]);
    acc[3] = __smlatt(xo, wo, acc[3]);
}

/** Bytewise signed max(v, lo): SSUB8 sets a GE flag per byte where v >= lo, SEL picks by them (inline asm with GCC,
 * which could otherwise drop or move the SSUB8 whose result is unused). */
static inline uint32_t mcu_conv2d_s8_dw_max8(uint32_t v, uint32_t lo)
{
#if defined(__GNUC__)
    uint32_t r;
    __asm__("ssub8 %0, %1, %2\n\tsel %0, %1, %2" : "=&r"(r) : "r"(v), "r"(lo) : "cc");
    return r;
#else
    (void)__ssub8(v, lo);
    return __sel(v, lo);
#endif
}

/** Bytewise signed min(v, hi). */
static inline uint32_t mcu_conv2d_s8_dw_min8(uint32_t v, uint32_t hi)
{
#if defined(__GNUC__)
    uint32_t r;
    __asm__("ssub8 %0, %2, %1\n\tsel %0, %1, %2" : "=&r"(r) : "r"(v), "r"(hi) : "cc");
    return r;
#else
    (void)__ssub8(hi, v);
    return __sel(v, hi);
#endif
}

/** One tap of four channels of one pixel (the lone pixel's loop): both table entries loaded before the two words
 * (the loads pipeline), the weight word split into *we, *wo. With GCC an asm block of few operands. */
static MCU_CONV2D_S8_INLINE void mcu_conv2d_s8_dw_tapw(const int8_t *const *px, const int8_t *const *pw, int32_t ch,
                                                       int32_t *we, int32_t *wo, int32_t acc[4])
{
#if defined(__GNUC__)
    int32_t u, v;
    __asm__("ldr %[e], %[pw]\n\t"
            "ldr %[u], %[px]\n\t"
            "ldr %[e], [%[e], %[ch]]\n\t"
            "ldr %[u], [%[u], %[ch]]\n\t"
            "sxtb16 %[o], %[e], ror #8\n\t"
            "sxtb16 %[e], %[e]\n\t"
            "sxtb16 %[v], %[u]\n\t"
            "sxtb16 %[u], %[u], ror #8\n\t"
            "smlabb %[a0], %[v], %[e], %[a0]\n\t"
            "smlatt %[a2], %[v], %[e], %[a2]\n\t"
            "smlabb %[a1], %[u], %[o], %[a1]\n\t"
            "smlatt %[a3], %[u], %[o], %[a3]"
            : [a0] "+r"(acc[0]), [a1] "+r"(acc[1]), [a2] "+r"(acc[2]), [a3] "+r"(acc[3]), [u] "=&r"(u), [v] "=&r"(v),
              [e] "=&r"(*we), [o] "=&r"(*wo)
            : [px] "m"(*px), [pw] "m"(*pw), [ch] "r"(ch)
            : "memory");
#else
    const int32_t wv = mcu_conv2d_s8_load4(*pw + ch);
    *we = __sxtb16(wv);
    *wo = mcu_conv2d_s8_odd(wv);
    mcu_conv2d_s8_dw_mac4(mcu_conv2d_s8_load4(*px + ch), *we, *wo, acc);
#endif
}

/** Four int8 results (sign-extended int32, low bytes used) packed little-endian into one word: three BFI. */
static MCU_CONV2D_S8_INLINE uint32_t mcu_conv2d_s8_dw_bytes(int32_t r0, int32_t r1, int32_t r2, int32_t r3)
{
#if defined(__GNUC__)
    uint32_t v = (uint32_t)r0;
    __asm__("bfi %0, %1, #8, #8\n\tbfi %0, %2, #16, #8\n\tbfi %0, %3, #24, #8" : "+r"(v) : "r"(r1), "r"(r2), "r"(r3));
    return v;
#else
    return ((uint32_t)r0 & 0xffu) | ((uint32_t)r1 & 0xffu) << 8 | ((uint32_t)r2 & 0xffu) << 16 | (uint32_t)r3 << 24;
#endif
}

/** Four rounded products (channels ch .. ch + 3) finished: zp added saturating, SSAT to int8, packed into one word,
 * then, when clamp (qmin or qmax inside the int8 range), [qmin, qmax] four bytes at once (SSUB8 + SEL: both bounds
 * are int8, so this equals clamping before the SSAT); lims: qmin and qmax in every byte. */
static MCU_CONV2D_S8_INLINE uint32_t mcu_conv2d_s8_dw_finish(int32_t zp, int32_t clamp, const uint32_t lims[2],
                                                             int32_t a0, int32_t a1, int32_t a2, int32_t a3)
{
    const uint32_t v = mcu_conv2d_s8_dw_bytes(__ssat(__qadd(a0, zp), 8), __ssat(__qadd(a1, zp), 8),
                                              __ssat(__qadd(a2, zp), 8), __ssat(__qadd(a3, zp), 8));
    return clamp ? mcu_conv2d_s8_dw_min8(mcu_conv2d_s8_dw_max8(v, lims[0]), lims[1]) : v;
}

/** The four lanes of mcu_conv2d_s8_requant_any packed into one word (fixed mode, div, scales not finite). */
static MCU_CONV2D_S8_INLINE uint32_t mcu_conv2d_s8_dw_pack_any(const mcu_requant *rq, int32_t ch, int32_t a0,
                                                               int32_t a1, int32_t a2, int32_t a3)
{
    return (uint32_t)(uint8_t)mcu_conv2d_s8_requant_any(rq, a0, ch) |
           (uint32_t)(uint8_t)mcu_conv2d_s8_requant_any(rq, a1, ch + 1) << 8 |
           (uint32_t)(uint8_t)mcu_conv2d_s8_requant_any(rq, a2, ch + 2) << 16 |
           (uint32_t)(uint8_t)mcu_conv2d_s8_requant_any(rq, a3, ch + 3) << 24;
}

#if defined(__GNUC__) && defined(__ARM_FP) && (__ARM_FP & 4) && defined(__thumb2__)
#define MCU_CONV2D_S8_DW_FPU_ASM 1
#else
#define MCU_CONV2D_S8_DW_FPU_ASM 0
#endif

/** Four accumulators (channels ch .. ch + 3) requantized and packed little-endian into one word. Plain float mode
 * (sc: channel ch's scale, step 1 per channel or 0 per tensor): (float)acc * scale rounded half to even (VCVTR),
 * then mcu_conv2d_s8_dw_finish. Otherwise mcu_requant_apply per lane. */
static MCU_CONV2D_S8_INLINE uint32_t mcu_conv2d_s8_dw_pack(const mcu_requant *rq, int32_t plain, int32_t clamp,
                                                           int32_t ch, const float *sc, int32_t step,
                                                           const uint32_t lims[2], int32_t a0, int32_t a1, int32_t a2,
                                                           int32_t a3)
{
    if (plain) {
#if MCU_CONV2D_S8_DW_FPU_ASM
        /* the same conversions, multiplies and VCVTR as mcu_round_even_sat's, with two values per core<->FPU
         * transfer (VMOV of a register pair) */
        const float s0 = sc[0], s1 = sc[step], s2 = sc[2 * step], s3 = sc[3 * step];
        __asm__("vmov s0, s1, %[a0], %[a1]\n\t"
                "vmov s2, s3, %[a2], %[a3]\n\t"
                "vcvt.f32.s32 s0, s0\n\t"
                "vcvt.f32.s32 s1, s1\n\t"
                "vcvt.f32.s32 s2, s2\n\t"
                "vcvt.f32.s32 s3, s3\n\t"
                "vmul.f32 s0, s0, %[s0]\n\t"
                "vmul.f32 s1, s1, %[s1]\n\t"
                "vmul.f32 s2, s2, %[s2]\n\t"
                "vmul.f32 s3, s3, %[s3]\n\t"
                "vcvtr.s32.f32 s0, s0\n\t"
                "vcvtr.s32.f32 s1, s1\n\t"
                "vcvtr.s32.f32 s2, s2\n\t"
                "vcvtr.s32.f32 s3, s3\n\t"
                "vmov %[a0], %[a1], s0, s1\n\t"
                "vmov %[a2], %[a3], s2, s3"
                : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3)
                : [s0] "t"(s0), [s1] "t"(s1), [s2] "t"(s2), [s3] "t"(s3)
                : "s0", "s1", "s2", "s3");
#else
        a0 = mcu_round_even_sat((float)a0 * sc[0]);
        a1 = mcu_round_even_sat((float)a1 * sc[step]);
        a2 = mcu_round_even_sat((float)a2 * sc[2 * step]);
        a3 = mcu_round_even_sat((float)a3 * sc[3 * step]);
#endif
        return mcu_conv2d_s8_dw_finish(rq->zp, clamp, lims, a0, a1, a2, a3);
    }
    return mcu_conv2d_s8_dw_pack_any(rq, ch, a0, a1, a2, a3);
}

/** mcu_conv2d_s8_dw_pack for the same four channels of two pixels (acc[0..3], acc[4..7]) into out[0], out[1]: the
 * four scales loaded once. */
static MCU_CONV2D_S8_INLINE void mcu_conv2d_s8_dw_pack2(const mcu_requant *rq, int32_t plain, int32_t clamp,
                                                        int32_t ch, const float *sc, int32_t step,
                                                        const uint32_t lims[2], int32_t acc[8], uint32_t out[2])
{
    int32_t k;
    if (plain) {
#if MCU_CONV2D_S8_DW_FPU_ASM
        const float s0 = sc[0], s1 = sc[step], s2 = sc[2 * step], s3 = sc[3 * step];
        __asm__("vmov s0, s1, %[a0], %[a1]\n\t"
                "vmov s2, s3, %[a2], %[a3]\n\t"
                "vmov s4, s5, %[a4], %[a5]\n\t"
                "vmov s6, s7, %[a6], %[a7]\n\t"
                "vcvt.f32.s32 s0, s0\n\t"
                "vcvt.f32.s32 s1, s1\n\t"
                "vcvt.f32.s32 s2, s2\n\t"
                "vcvt.f32.s32 s3, s3\n\t"
                "vcvt.f32.s32 s4, s4\n\t"
                "vcvt.f32.s32 s5, s5\n\t"
                "vcvt.f32.s32 s6, s6\n\t"
                "vcvt.f32.s32 s7, s7\n\t"
                "vmul.f32 s0, s0, %[s0]\n\t"
                "vmul.f32 s1, s1, %[s1]\n\t"
                "vmul.f32 s2, s2, %[s2]\n\t"
                "vmul.f32 s3, s3, %[s3]\n\t"
                "vmul.f32 s4, s4, %[s0]\n\t"
                "vmul.f32 s5, s5, %[s1]\n\t"
                "vmul.f32 s6, s6, %[s2]\n\t"
                "vmul.f32 s7, s7, %[s3]\n\t"
                "vcvtr.s32.f32 s0, s0\n\t"
                "vcvtr.s32.f32 s1, s1\n\t"
                "vcvtr.s32.f32 s2, s2\n\t"
                "vcvtr.s32.f32 s3, s3\n\t"
                "vcvtr.s32.f32 s4, s4\n\t"
                "vcvtr.s32.f32 s5, s5\n\t"
                "vcvtr.s32.f32 s6, s6\n\t"
                "vcvtr.s32.f32 s7, s7\n\t"
                "vmov %[a0], %[a1], s0, s1\n\t"
                "vmov %[a2], %[a3], s2, s3\n\t"
                "vmov %[a4], %[a5], s4, s5\n\t"
                "vmov %[a6], %[a7], s6, s7"
                : [a0] "+r"(acc[0]), [a1] "+r"(acc[1]), [a2] "+r"(acc[2]), [a3] "+r"(acc[3]), [a4] "+r"(acc[4]),
                  [a5] "+r"(acc[5]), [a6] "+r"(acc[6]), [a7] "+r"(acc[7])
                : [s0] "t"(s0), [s1] "t"(s1), [s2] "t"(s2), [s3] "t"(s3)
                : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7");
#else
        for (k = 0; k < 8; ++k) {
            acc[k] = mcu_round_even_sat((float)acc[k] * sc[(k & 3) * step]);
        }
#endif
        out[0] = mcu_conv2d_s8_dw_finish(rq->zp, clamp, lims, acc[0], acc[1], acc[2], acc[3]);
        out[1] = mcu_conv2d_s8_dw_finish(rq->zp, clamp, lims, acc[4], acc[5], acc[6], acc[7]);
        return;
    }
    (void)k;
    out[0] = mcu_conv2d_s8_dw_pack_any(rq, ch, acc[0], acc[1], acc[2], acc[3]);
    out[1] = mcu_conv2d_s8_dw_pack_any(rq, ch, acc[4], acc[5], acc[6], acc[7]);
}
#endif

/* tab layout: pixel 0's taps, pixel 1's taps, the weights' tap rows, MCU_CONV2D_S8_DW_TAPS apart. */
#define MCU_CONV2D_S8_DW_X0 0
#define MCU_CONV2D_S8_DW_X1 MCU_CONV2D_S8_DW_TAPS
#define MCU_CONV2D_S8_DW_W (2 * MCU_CONV2D_S8_DW_TAPS)

#if defined(__ARM_FEATURE_DSP)
/* acc[a..a + 3] += the split window word (x: lanes 0, 2; u: lanes 1, 3) times the split weight word (e, w). */
#define MCU_CONV2D_S8_DW_MACS(a0, a1, a2, a3)                                                                          \
    "smlabb %[" a0 "], %[x], %[e], %[" a0 "]\n\t"                                                                     \
    "smlatt %[" a2 "], %[x], %[e], %[" a2 "]\n\t"                                                                     \
    "smlabb %[" a1 "], %[u], %[w], %[" a1 "]\n\t"                                                                     \
    "smlatt %[" a3 "], %[u], %[w], %[" a3 "]\n\t"
#define MCU_CONV2D_S8_DW_PAIR_OUT                                                                                      \
    [a0] "+r"(acc[0]), [a1] "+r"(acc[1]), [a2] "+r"(acc[2]), [a3] "+r"(acc[3]), [a4] "+r"(acc[4]),                     \
        [a5] "+r"(acc[5]), [a6] "+r"(acc[6]), [a7] "+r"(acc[7]), [u] "=&r"(u), [w] "=&r"(w), [e] "=&r"(e),             \
        [x] "=&r"(x)

/** Channels ch .. ch + 3 of tap t for both pixels: acc[0..3] pixel 0, acc[4..7] pixel 1. With GCC one asm block:
 * the table entries, then the words, the weight word split once into lanes (0, 2) and (1, 3) by SXTB16, each
 * window's word split and multiplied (SMLABB / SMLATT). Unrolled (t constant) the table is read through
 * sp-relative memory operands, which leaves a fifth temporary besides the channel and the eight accumulators: all
 * six loads in a row (they pipeline). The rolled loop (other windows) in C: there the table address takes a
 * register, one more than Armv8.1-M leaves while its loop counter holds LR. */
static MCU_CONV2D_S8_INLINE void mcu_conv2d_s8_dw_pair_tap(const int8_t *const *tab, int32_t t, int32_t ch,
                                                           int32_t acc[8], int32_t unrolled)
{
#if defined(__GNUC__)
    int32_t u, w, e, x, v;
    if (unrolled) {
        __asm__("ldr %[u], %[p0]\n\t"
                "ldr %[v], %[p1]\n\t"
                "ldr %[w], %[pw]\n\t"
                "ldr %[u], [%[u], %[ch]]\n\t"
                "ldr %[v], [%[v], %[ch]]\n\t"
                "ldr %[w], [%[w], %[ch]]\n\t"
                "sxtb16 %[e], %[w]\n\t"
                "sxtb16 %[w], %[w], ror #8\n\t"
                "sxtb16 %[x], %[u]\n\t"
                "sxtb16 %[u], %[u], ror #8\n\t"
                MCU_CONV2D_S8_DW_MACS("a0", "a1", "a2", "a3")
                "sxtb16 %[x], %[v]\n\t"
                "sxtb16 %[u], %[v], ror #8\n\t"
                MCU_CONV2D_S8_DW_MACS("a4", "a5", "a6", "a7")
                : MCU_CONV2D_S8_DW_PAIR_OUT, [v] "=&r"(v)
                : [p0] "m"(tab[MCU_CONV2D_S8_DW_X0 + t]), [p1] "m"(tab[MCU_CONV2D_S8_DW_X1 + t]),
                  [pw] "m"(tab[MCU_CONV2D_S8_DW_W + t]), [ch] "r"(ch)
                : "memory");
        return;
    }
    (void)u, (void)w, (void)e, (void)x, (void)v;
#endif
    {
        const int32_t wv = mcu_conv2d_s8_load4(tab[MCU_CONV2D_S8_DW_W + t] + ch);
        const int32_t we = __sxtb16(wv), wo = mcu_conv2d_s8_odd(wv);
        (void)unrolled;
        mcu_conv2d_s8_dw_mac4(mcu_conv2d_s8_load4(tab[MCU_CONV2D_S8_DW_X0 + t] + ch), we, wo, acc);
        mcu_conv2d_s8_dw_mac4(mcu_conv2d_s8_load4(tab[MCU_CONV2D_S8_DW_X1 + t] + ch), we, wo, acc + 4);
    }
}
#endif

#if defined(__ARM_FEATURE_DSP) && defined(__GNUC__)
#define MCU_CONV2D_S8_DW_INSIDE 1
/* One kernel row of a pair inside the input, stride 1 (asm text; q: the row's first window pixel + ch, pw: the
 * weights + ch, C the channel count as an immediate): the row's four words x0..x3 each loaded and split once, pixel 0
 * takes x0..x2, pixel 1 x1..x3 against the row's weights w0..w2, each weight word loaded and split once (w(k) stays
 * split until pixel 1 used it with x(k + 1)). */
#define MCU_CONV2D_S8_DW_SPLIT(r, lo)                                                                                  \
    "sxtb16 %[" lo "], %[" r "]\n\t"                                                                                   \
    "sxtb16 %[" r "], %[" r "], ror #8\n\t"
#define MCU_CONV2D_S8_DW_SLIDE_ROW(ky)                                                                                 \
    "ldr %[u], [%[q]]\n\t"                                                                                             \
    "ldr %[w], [%[pw], #(%c[c] * (3 * " #ky "))]\n\t"                                                                  \
    MCU_CONV2D_S8_DW_SPLIT("w", "e") MCU_CONV2D_S8_DW_SPLIT("u", "x")                                                  \
    MCU_CONV2D_S8_DW_MACS("a0", "a1", "a2", "a3")                                                                      \
    "ldr %[u], [%[q], #%c[c]]\n\t"                                                                                     \
    MCU_CONV2D_S8_DW_SPLIT("u", "x") MCU_CONV2D_S8_DW_MACS("a4", "a5", "a6", "a7")                                     \
    "ldr %[w], [%[pw], #(%c[c] * (3 * " #ky " + 1))]\n\t"                                                              \
    MCU_CONV2D_S8_DW_SPLIT("w", "e") MCU_CONV2D_S8_DW_MACS("a0", "a1", "a2", "a3")                                     \
    "ldr %[u], [%[q], #(%c[c] * 2)]\n\t"                                                                               \
    MCU_CONV2D_S8_DW_SPLIT("u", "x") MCU_CONV2D_S8_DW_MACS("a4", "a5", "a6", "a7")                                     \
    "ldr %[w], [%[pw], #(%c[c] * (3 * " #ky " + 2))]\n\t"                                                              \
    MCU_CONV2D_S8_DW_SPLIT("w", "e") MCU_CONV2D_S8_DW_MACS("a0", "a1", "a2", "a3")                                     \
    "ldr %[u], [%[q], #(%c[c] * 3)]\n\t"                                                                               \
    MCU_CONV2D_S8_DW_SPLIT("u", "x") MCU_CONV2D_S8_DW_MACS("a4", "a5", "a6", "a7")

/* The three kernel rows of the pair for C = chans (a constant), advancing q by two rows (rs[0] each). */
#define MCU_CONV2D_S8_DW_SLIDE(chans)                                                                                      \
    __asm__(MCU_CONV2D_S8_DW_SLIDE_ROW(0) "ldr %[e], %[rs]\n\t"                                                        \
            "add %[q], %[q], %[e]\n\t" MCU_CONV2D_S8_DW_SLIDE_ROW(1) "ldr %[e], %[rs]\n\t"                             \
            "add %[q], %[q], %[e]\n\t" MCU_CONV2D_S8_DW_SLIDE_ROW(2)                                                   \
            : [a0] "+r"(acc[0]), [a1] "+r"(acc[1]), [a2] "+r"(acc[2]), [a3] "+r"(acc[3]), [a4] "+r"(acc[4]),           \
              [a5] "+r"(acc[5]), [a6] "+r"(acc[6]), [a7] "+r"(acc[7]), [u] "=&r"(u), [w] "=&r"(w), [e] "=&r"(e),       \
              [x] "=&r"(xs), [q] "+r"(q)                                                                               \
            : [pw] "r"(p->w + ch), [rs] "m"(rs[0]), [c] "n"(chans)                                                     \
            : "memory")

/** Every channel of a pixel pair (q, q + 1) in one output row, stride 1, undilated columns, 3x3 window wholly inside
 * the input, plain float requantization, C = c channels (a constant: every offset is an immediate, so no tap table
 * and no register for C). x: the first window's first pixel; rs[0]: bytes from one kernel row to the next
 * (dil_h * W * C), in memory (a stack slot the asm block reads sp-relative: all fourteen registers hold its
 * operands). Per kernel row 4 + 3 loads, 14 SXTB16 and 24 SMLAxy for 24 MACs. */
static MCU_CONV2D_S8_INLINE void mcu_conv2d_s8_dw_inside(const mcu_conv2d_s8_params *p, const mcu_requant *rq,
                                                         int32_t clamp, const uint32_t lims[2], const int8_t *x,
                                                         const int32_t rs[1], int8_t *y0, int8_t *y1, const int32_t c)
{
    const int32_t step = rq->per_channel ? 1 : 0;
    int32_t ch;
    for (ch = 0; ch < c; ch += 4) {
        const int8_t *q = x + ch;
        int32_t acc[8], u, w, e, xs;
        uint32_t v[2];
        acc[0] = acc[4] = p->kbias[ch];
        acc[1] = acc[5] = p->kbias[ch + 1];
        acc[2] = acc[6] = p->kbias[ch + 2];
        acc[3] = acc[7] = p->kbias[ch + 3];
        MCU_CONV2D_S8_DW_SLIDE(c);
        mcu_conv2d_s8_dw_pack2(rq, 1, clamp, ch, rq->scale + ch * step, step, lims, acc, v);
        memcpy(y0 + ch, &v[0], 4);
        memcpy(y1 + ch, &v[1], 4);
    }
}

/** mcu_conv2d_s8_dw_inside for the channel counts it is instantiated for (one asm body each: 8, 16, 32, 64 and 128,
 * the MobileNet-style counts below 256); returns 0 for the others (then the tables). */
static MCU_CONV2D_S8_INLINE int32_t mcu_conv2d_s8_dw_inside_any(const mcu_conv2d_s8_params *p,
                                                                 const mcu_requant *rq, const int8_t *x, int8_t *y0,
                                                                 int8_t *y1)
{
    const int32_t c = p->g.c_in, rs[1] = {p->g.dil_h * p->g.w_in * c};
    const uint32_t lims[2] = {(uint32_t)(uint8_t)rq->qmin * 0x01010101u, (uint32_t)(uint8_t)rq->qmax * 0x01010101u};
    const int32_t clamp = rq->qmin > -128 || rq->qmax < 127;
    switch (c) {
    case 8:
        mcu_conv2d_s8_dw_inside(p, rq, clamp, lims, x, rs, y0, y1, 8);
        return 1;
    case 16:
        mcu_conv2d_s8_dw_inside(p, rq, clamp, lims, x, rs, y0, y1, 16);
        return 1;
    case 32:
        mcu_conv2d_s8_dw_inside(p, rq, clamp, lims, x, rs, y0, y1, 32);
        return 1;
    case 64:
        mcu_conv2d_s8_dw_inside(p, rq, clamp, lims, x, rs, y0, y1, 64);
        return 1;
    case 128:
        mcu_conv2d_s8_dw_inside(p, rq, clamp, lims, x, rs, y0, y1, 128);
        return 1;
    default:
        return 0;
    }
}
#else
#define MCU_CONV2D_S8_DW_INSIDE 0
#endif

/** Every channel of both pixels of a pair, the 3x3 tap loops unrolled. Per tap and four channels (DSP) one weight word is split into lanes (0, 2) and (1, 3) by SXTB16 and
 * multiplied with both windows' words (SMLABB / SMLATT); all addresses are a table entry plus the channel. */
static MCU_CONV2D_S8_INLINE void mcu_conv2d_s8_dw_pair(const mcu_conv2d_s8_params *p, const mcu_requant *rq,
                                                       int32_t plain, const int8_t *const *tab, int32_t taps,
                                                       int8_t *y0, int8_t *y1)
{
    const int32_t c = p->g.c_in;
    int32_t ch = 0, t;
#if defined(__ARM_FEATURE_DSP)
    const int32_t step = rq->per_channel ? 1 : 0;
    const uint32_t lims[2] = {(uint32_t)(uint8_t)rq->qmin * 0x01010101u, (uint32_t)(uint8_t)rq->qmax * 0x01010101u};
    const int32_t clamp = rq->qmin > -128 || rq->qmax < 127;
    for (; ch + 4 <= c; ch += 4) {
        int32_t acc[8];
        uint32_t v[2];
        acc[0] = acc[4] = p->kbias[ch];
        acc[1] = acc[5] = p->kbias[ch + 1];
        acc[2] = acc[6] = p->kbias[ch + 2];
        acc[3] = acc[7] = p->kbias[ch + 3];
        if (taps == 9) {
            MCU_CONV2D_S8_DW_UNROLL
            for (t = 0; t < 9; ++t) {
                mcu_conv2d_s8_dw_pair_tap(tab, t, ch, acc, 1);
            }
        } else {
            for (t = 0; t < taps; ++t) {
                mcu_conv2d_s8_dw_pair_tap(tab, t, ch, acc, 0);
            }
        }
        mcu_conv2d_s8_dw_pack2(rq, plain, clamp, ch, rq->scale + ch * step, step, lims, acc, v);
        memcpy(y0 + ch, &v[0], 4);
        memcpy(y1 + ch, &v[1], 4);
    }
#endif
    /* ARMv6-M (and the C % 4 left on DSP cores): one channel of both pixels; LDRSB takes a register offset, so the
     * channel index serves every table entry */
    for (; ch < c; ++ch) {
        int32_t a = p->kbias[ch], b = a;
        MCU_CONV2D_S8_DW_UNROLL_SCALAR
        for (t = 0; t < taps; ++t) {
            const int32_t w = tab[MCU_CONV2D_S8_DW_W + t][ch];
            a += tab[MCU_CONV2D_S8_DW_X0 + t][ch] * w;
            b += tab[MCU_CONV2D_S8_DW_X1 + t][ch] * w;
        }
        y0[ch] = mcu_conv2d_s8_requant(rq, plain, a, ch);
        y1[ch] = mcu_conv2d_s8_requant(rq, plain, b, ch);
    }
}

/** One pixel alone (an odd last one, or every pixel above MCU_CONV2D_S8_DW_DEFER channels), every channel: the
 * pair's loops for pixel 0 only. */
static MCU_CONV2D_S8_INLINE void mcu_conv2d_s8_dw_one(const mcu_conv2d_s8_params *p, const mcu_requant *rq,
                                                      int32_t plain, const int8_t *const *tab, int32_t taps,
                                                      int8_t *y0)
{
    const int32_t c = p->g.c_in;
    int32_t ch = 0, t;
#if defined(__ARM_FEATURE_DSP)
    const int32_t step = rq->per_channel ? 1 : 0;
    const uint32_t lims[2] = {(uint32_t)(uint8_t)rq->qmin * 0x01010101u, (uint32_t)(uint8_t)rq->qmax * 0x01010101u};
    const int32_t clamp = rq->qmin > -128 || rq->qmax < 127;
    for (; ch + 4 <= c; ch += 4) {
        int32_t acc[4];
        uint32_t v;
        acc[0] = p->kbias[ch];
        acc[1] = p->kbias[ch + 1];
        acc[2] = p->kbias[ch + 2];
        acc[3] = p->kbias[ch + 3];
        if (taps == 9) {
            MCU_CONV2D_S8_DW_UNROLL
            for (t = 0; t < 9; ++t) {
                int32_t we, wo;
                mcu_conv2d_s8_dw_tapw(tab + MCU_CONV2D_S8_DW_X0 + t, tab + MCU_CONV2D_S8_DW_W + t, ch, &we, &wo, acc);
            }
        } else {
            for (t = 0; t < taps; ++t) {
                int32_t we, wo;
                mcu_conv2d_s8_dw_tapw(tab + MCU_CONV2D_S8_DW_X0 + t, tab + MCU_CONV2D_S8_DW_W + t, ch, &we, &wo, acc);
            }
        }
        v = mcu_conv2d_s8_dw_pack(rq, plain, clamp, ch, rq->scale + ch * step, step, lims, acc[0], acc[1], acc[2],
                                  acc[3]);
        memcpy(y0 + ch, &v, 4);
    }
#endif
    for (; ch < c; ++ch) {
        int32_t a = p->kbias[ch];
        MCU_CONV2D_S8_DW_UNROLL_SCALAR
        for (t = 0; t < taps; ++t) {
            a += tab[MCU_CONV2D_S8_DW_X0 + t][ch] * tab[MCU_CONV2D_S8_DW_W + t][ch];
        }
        y0[ch] = mcu_conv2d_s8_requant(rq, plain, a, ch);
    }
}

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

/** The in-place variant (see above). */
static MCU_CONV2D_S8_DW_NOINLINE void mcu_conv2d_s8_dw_ring(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const mcu_requant rq = p->rq;
    const int32_t c = g->c_in, plain = mcu_requant_is_plain(&rq, c), plane = g->h_in * g->w_in;
    const int32_t taps = g->k_h * g->k_w;
    const int8_t *tab[MCU_CONV2D_S8_DW_TAPS];
    int8_t ring[2 * MCU_CONV2D_S8_DW_RING * 4];
    int32_t b, n, oy, ox, k, t;
#if defined(__ARM_FEATURE_DSP)
    const int32_t step = rq.per_channel ? 1 : 0, last_row = (g->k_h - 1) * g->dil_h, last_col = (g->k_w - 1) * g->dil_w;
    const uint32_t lims[2] = {(uint32_t)(uint8_t)rq.qmin * 0x01010101u, (uint32_t)(uint8_t)rq.qmax * 0x01010101u};
    const int32_t clamp = rq.qmin > -128 || rq.qmax < 127;
    int32_t rel[MCU_CONV2D_S8_DW_TAPS], ring_taps = 0, acc4[4];
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
                        v = mcu_conv2d_s8_dw_pack(&rq, plain, clamp, b, rq.scale + b * step, step, lims, acc4[0], acc4[1],
                                                  acc4[2], acc4[3]);
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

/** The second pixel's c bytes from the stack: words, then the c % 4 left (newlib-nano's memcpy goes byte by byte). */
static void mcu_conv2d_s8_dw_copy(int8_t *dst, const int32_t *src, int32_t c)
{
    int32_t i;
    for (i = 0; i + 4 <= c; i += 4) {
        memcpy(dst + i, src + i / 4, 4);
    }
    memcpy(dst + i, src + i / 4, (size_t)(c - i));
}

/** The pixel-pair path (see the top of the file). */
static MCU_CONV2D_S8_DW_NOINLINE void mcu_conv2d_s8_dw_pairs(const mcu_conv2d_s8_params *p, const int8_t *x,
                                                             int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const mcu_requant rq = p->rq; /* a local copy: the int8 stores could alias p, which stops hoisting */
    const int32_t c = g->c_in, pixels = g->n * g->h_out * g->w_out, paired = c <= MCU_CONV2D_S8_DW_DEFER;
    const int32_t plain = mcu_requant_is_plain(&rq, c), taps = g->k_h * g->k_w;
    const size_t image = (size_t)g->h_in * g->w_in * c;
    const int8_t *tab[3 * MCU_CONV2D_S8_DW_TAPS];
    int32_t rel[MCU_CONV2D_S8_DW_TAPS], defer[MCU_CONV2D_S8_DW_DEFER / 4];
    int32_t q = 0, n = 0, oy = 0, ox = 0, ky, kx, i;
#if MCU_CONV2D_S8_DW_INSIDE
    const int32_t slide = g->k_h == 3 && g->k_w == 3 && g->stride_w == 1 && g->dil_w == 1 && plain;
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
#if MCU_CONV2D_S8_DW_INSIDE
        /* a 3x3 stride-1 pair in one row with both windows inside: no tables */
        const int32_t iy0 = oy * g->stride_h - g->pad_t, ix0 = ox * g->stride_w - g->pad_l;
        if (slide && two && ox + 1 < g->w_out && iy0 >= 0 && iy0 + 2 * g->dil_h < g->h_in && ix0 >= 0 &&
            ix0 + 3 < g->w_in &&
            mcu_conv2d_s8_dw_inside_any(p, &rq, x + n * image + ((size_t)iy0 * g->w_in + ix0) * c, y0,
                                        (int8_t *)defer)) {
            mcu_conv2d_s8_dw_copy(y0 + c, defer, c);
            q += 2;
            if ((ox += 2) == g->w_out) {
                ox = 0;
                if (++oy == g->h_out) {
                    oy = 0;
                    ++n;
                }
            }
            continue;
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
            mcu_conv2d_s8_dw_pair(p, &rq, plain, tab, 9, y0, (int8_t *)defer);
        } else if (two) {
            mcu_conv2d_s8_dw_pair(p, &rq, plain, tab, taps, y0, (int8_t *)defer);
        } else {
            mcu_conv2d_s8_dw_one(p, &rq, plain, tab, taps, y0);
        }
        if (two) {
            mcu_conv2d_s8_dw_copy(y0 + c, defer, c);
        }
        q += 1 + two;
    }
}

void mcu_conv2d_s8_dw(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y)
{
    /* two out-of-line paths: the stack holds the ring or the pair tables, never both */
    if (p->path == MCU_CONV2D_S8_DEPTHWISE_RING) {
        mcu_conv2d_s8_dw_ring(p, x, y);
    } else {
        mcu_conv2d_s8_dw_pairs(p, x, y);
    }
}
