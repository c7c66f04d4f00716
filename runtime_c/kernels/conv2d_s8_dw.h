#ifndef MCU_CONV2D_S8_DW_H
#define MCU_CONV2D_S8_DW_H
#include "conv2d_s8.h"

/* Tables, multiply-accumulates, requantizing packs and assembly loops of the depthwise paths
 * (conv2d_s8_depthwise.c, conv2d_s8_depthwise_ring.c). */

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
#define MCU_CONV2D_S8_DW_UNROLL3 _Pragma("GCC unroll 3")
#else
#define MCU_CONV2D_S8_DW_UNROLL
#define MCU_CONV2D_S8_DW_UNROLL3
#endif
/* ARMv6-M: the one-channel loops are the main loops, unrolled (the pair called with a constant 9 for 3x3 windows);
 * on DSP cores they only run the C % 4 left. */
#if defined(__ARM_FEATURE_DSP)
#define MCU_CONV2D_S8_DW_DSP 1
#define MCU_CONV2D_S8_DW_UNROLL_SCALAR
#define MCU_CONV2D_S8_DW_UNROLL_TABLE MCU_CONV2D_S8_DW_UNROLL3
#else
#define MCU_CONV2D_S8_DW_DSP 0
#define MCU_CONV2D_S8_DW_UNROLL_SCALAR MCU_CONV2D_S8_DW_UNROLL
#define MCU_CONV2D_S8_DW_UNROLL_TABLE
#endif

/** tab[t]: tap t's channel 0 in the window starting at input (iy0, ix0) of image xi (kernel-row-major), or zrow for
 * a tap in the padding; rel: the taps' offsets from the window start. The columns in range are found once (a bit
 * per kx), so a tap costs a select; the window start's offset may lie outside the image, only taps in range add it.
 * Inlined with constant k_h, k_w for 3x3 windows (the loops unrolled on DSP cores; ARMv6-M keeps less code). */
static MCU_INLINE void mcu_conv2d_s8_dw_table_k(const mcu_conv_geom *g, const int8_t *zrow,
                                                          const int8_t *xi, int32_t iy0, int32_t ix0,
                                                          const int32_t *rel, const int8_t **tab, int32_t k_h,
                                                          int32_t k_w)
{
    const int32_t start = (iy0 * g->w_in + ix0) * g->c_in;
    uint32_t cols = 0;
    int32_t ky, kx;
    MCU_CONV2D_S8_DW_UNROLL_TABLE
    for (kx = 0; kx < k_w; ++kx) {
        cols |= (uint32_t)((uint32_t)(ix0 + kx * g->dil_w) < (uint32_t)g->w_in) << kx;
    }
    MCU_CONV2D_S8_DW_UNROLL_TABLE
    for (ky = 0; ky < k_h; ++ky) {
        const uint32_t in = (uint32_t)(iy0 + ky * g->dil_h) < (uint32_t)g->h_in ? cols : 0;
        MCU_CONV2D_S8_DW_UNROLL_TABLE
        for (kx = 0; kx < k_w; ++kx) {
            tab[ky * k_w + kx] = in >> kx & 1u ? xi + (start + rel[ky * k_w + kx]) : zrow;
        }
    }
}

/** mcu_conv2d_s8_dw_table_k for a 3x3 window: the offsets of its rows and columns in registers (no rel table), a
 * select per tap. */
static MCU_INLINE void mcu_conv2d_s8_dw_table3(const mcu_conv_geom *g, const int8_t *zrow, const int8_t *xi,
                                                         int32_t iy0, int32_t ix0, const int8_t **tab)
{
    const int32_t col = g->dil_w * g->c_in, row = g->dil_h * g->w_in * g->c_in;
    const uint32_t w = (uint32_t)g->w_in, h = (uint32_t)g->h_in;
    const int32_t in0 = (uint32_t)ix0 < w, in1 = (uint32_t)(ix0 + g->dil_w) < w;
    const int32_t in2 = (uint32_t)(ix0 + 2 * g->dil_w) < w;
    int32_t start = (iy0 * g->w_in + ix0) * g->c_in, ky, iy = iy0;
    for (ky = 0; ky < 3; ++ky, start += row, iy += g->dil_h, tab += 3) {
        const int32_t in = (uint32_t)iy < h;
        tab[0] = in && in0 ? xi + start : zrow;
        tab[1] = in && in1 ? xi + (start + col) : zrow;
        tab[2] = in && in2 ? xi + (start + 2 * col) : zrow;
    }
}

/** mcu_conv2d_s8_dw_table_k for p's window (3x3: mcu_conv2d_s8_dw_table3). */
MCU_CONV2D_S8_SHARED
static MCU_CONV2D_S8_DW_NOINLINE void mcu_conv2d_s8_dw_table(const mcu_conv2d_s8_params *p, const int8_t *xi, int32_t iy0, int32_t ix0,
                                   const int32_t *rel, const int8_t **tab)
{
    const mcu_conv_geom *g = &p->g;
    if (g->k_h == 3 && g->k_w == 3) {
        mcu_conv2d_s8_dw_table3(g, p->zrow, xi, iy0, ix0, tab);
    } else {
        mcu_conv2d_s8_dw_table_k(g, p->zrow, xi, iy0, ix0, rel, tab, g->k_h, g->k_w);
    }
}

#if defined(__ARM_FEATURE_DSP)
/** acc[c] += x[c] * w[c] for four channels: x split into lanes (0, 2) and (1, 3) by SXTB16, the weights' lanes we, wo
 * (SMLABB / SMLATT). */
static MCU_INLINE void mcu_conv2d_s8_dw_mac4(int32_t x, int32_t we, int32_t wo, int32_t acc[4])
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
static MCU_INLINE void mcu_conv2d_s8_dw_tapw(const int8_t *const *px, const int8_t *const *pw, int32_t ch,
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
static MCU_INLINE uint32_t mcu_conv2d_s8_dw_bytes(int32_t r0, int32_t r1, int32_t r2, int32_t r3)
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
static MCU_INLINE uint32_t mcu_conv2d_s8_dw_finish(int32_t zp, int32_t clamp, const uint32_t lims[2],
                                                             int32_t a0, int32_t a1, int32_t a2, int32_t a3)
{
    const uint32_t v = mcu_conv2d_s8_dw_bytes(__ssat(__qadd(a0, zp), 8), __ssat(__qadd(a1, zp), 8),
                                              __ssat(__qadd(a2, zp), 8), __ssat(__qadd(a3, zp), 8));
    return clamp ? mcu_conv2d_s8_dw_min8(mcu_conv2d_s8_dw_max8(v, lims[0]), lims[1]) : v;
}

/** lims: qmin and qmax in every byte; returns whether [qmin, qmax] is narrower than int8 (the bytewise clamp of
 * mcu_conv2d_s8_dw_finish and the assembly is needed). */
static MCU_INLINE int32_t mcu_conv2d_s8_dw_limits(const mcu_requant *rq, uint32_t lims[2])
{
    lims[0] = (uint32_t)(uint8_t)rq->qmin * 0x01010101u;
    lims[1] = (uint32_t)(uint8_t)rq->qmax * 0x01010101u;
    return rq->qmin > -128 || rq->qmax < 127;
}

/** The four lanes of mcu_conv2d_s8_requant_any packed into one word (fixed mode, div, scales not finite). */
static MCU_INLINE uint32_t mcu_conv2d_s8_dw_pack_any(const mcu_requant *rq, int32_t ch, int32_t a0,
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
static MCU_INLINE uint32_t mcu_conv2d_s8_dw_pack(const mcu_requant *rq, int32_t plain, int32_t clamp,
                                                           int32_t ch, const float *sc, int32_t step,
                                                           const uint32_t lims[2], int32_t a0, int32_t a1, int32_t a2,
                                                           int32_t a3)
{
    if (plain) {
#if MCU_CONV2D_S8_DW_FPU_ASM
        /* the same conversions, multiplies and VCVTR as mcu_round_even_sat's, with two values per core<->FPU
         * transfer (VMOV of a register pair); per channel the four scales by one VLDM */
#define MCU_CONV2D_S8_DW_PACK(LOAD, M1, M2, M3)                                                                      \
    __asm__("vmov s0, s1, %[a0], %[a1]\n\t"                                                                           \
            "vmov s2, s3, %[a2], %[a3]\n\t" LOAD "vcvt.f32.s32 s0, s0\n\t"                                           \
            "vcvt.f32.s32 s1, s1\n\t"                                                                                  \
            "vcvt.f32.s32 s2, s2\n\t"                                                                                  \
            "vcvt.f32.s32 s3, s3\n\t"                                                                                  \
            "vmul.f32 s0, s0, s4\n\t"                                                                                  \
            "vmul.f32 s1, s1, " M1 "\n\t"                                                                              \
            "vmul.f32 s2, s2, " M2 "\n\t"                                                                              \
            "vmul.f32 s3, s3, " M3 "\n\t"                                                                              \
            "vcvtr.s32.f32 s0, s0\n\t"                                                                                 \
            "vcvtr.s32.f32 s1, s1\n\t"                                                                                 \
            "vcvtr.s32.f32 s2, s2\n\t"                                                                                 \
            "vcvtr.s32.f32 s3, s3\n\t"                                                                                 \
            "vmov %[a0], %[a1], s0, s1\n\t"                                                                            \
            "vmov %[a2], %[a3], s2, s3"                                                                                 \
            : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3)                                               \
            : [sc] "r"(sc), "m"(*(const float(*)[4])sc)                                                              \
            : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7")
        if (step) {
            MCU_CONV2D_S8_DW_PACK("vldmia %[sc], {s4-s7}\n\t", "s5", "s6", "s7");
        } else {
            MCU_CONV2D_S8_DW_PACK("vldr s4, [%[sc]]\n\t", "s4", "s4", "s4");
        }
#undef MCU_CONV2D_S8_DW_PACK
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

#endif

/* tab layout: pixel 0's taps, pixel 1's taps, the weights' tap rows, MCU_CONV2D_S8_DW_TAPS apart. */
#define MCU_CONV2D_S8_DW_X0 0
/* An argument the naked functions' assembly reads from r0 (AAPCS). */
#define MCU_CONV2D_S8_DW_REG_ARG __attribute__((unused))
#define MCU_CONV2D_S8_DW_X1 MCU_CONV2D_S8_DW_TAPS
#define MCU_CONV2D_S8_DW_W (2 * MCU_CONV2D_S8_DW_TAPS)

#if defined(__ARM_FEATURE_DSP)
/** The second pixel's tap with the weights mcu_conv2d_s8_dw_tapw split: the window's word at *px + ch split into
 * lanes (0, 2) and (1, 3) by SXTB16 times we, wo (SMLABB / SMLATT) into acc[0..3]. With GCC an asm block of few
 * operands (in plain C gcc spills some of the pair's eight accumulators in the unrolled tap loop; more operands
 * than this leave -Og builds, which keep r7 for the frame, without registers). */
static MCU_INLINE void mcu_conv2d_s8_dw_tap(const int8_t *const *px, int32_t ch, int32_t we, int32_t wo,
                                                      int32_t acc[4])
{
#if defined(__GNUC__)
    int32_t u, v;
    __asm__("ldr %[u], %[px]\n\t"
            "ldr %[u], [%[u], %[ch]]\n\t"
            "sxtb16 %[v], %[u]\n\t"
            "sxtb16 %[u], %[u], ror #8\n\t"
            "smlabb %[a0], %[v], %[we], %[a0]\n\t"
            "smlatt %[a2], %[v], %[we], %[a2]\n\t"
            "smlabb %[a1], %[u], %[wo], %[a1]\n\t"
            "smlatt %[a3], %[u], %[wo], %[a3]"
            : [a0] "+r"(acc[0]), [a1] "+r"(acc[1]), [a2] "+r"(acc[2]), [a3] "+r"(acc[3]), [u] "=&r"(u), [v] "=&r"(v)
            : [px] "m"(*px), [ch] "r"(ch), [we] "r"(we), [wo] "r"(wo)
            : "memory");
#else
    mcu_conv2d_s8_dw_mac4(mcu_conv2d_s8_load4(*px + ch), we, wo, acc);
#endif
}

/** Channels ch .. ch + 3 of tap t for both pixels: acc[0..3] pixel 0, acc[4..7] pixel 1. */
static MCU_INLINE void mcu_conv2d_s8_dw_pair_tap(const int8_t *const *tab, int32_t t, int32_t ch,
                                                           int32_t acc[8])
{
    int32_t we, wo;
    mcu_conv2d_s8_dw_tapw(tab + MCU_CONV2D_S8_DW_X0 + t, tab + MCU_CONV2D_S8_DW_W + t, ch, &we, &wo, acc);
    mcu_conv2d_s8_dw_tap(tab + MCU_CONV2D_S8_DW_X1 + t, ch, we, wo, acc + 4);
}
#endif

#if defined(__ARM_FEATURE_DSP) && MCU_CONV2D_S8_DW_FPU_ASM
#define MCU_CONV2D_S8_DW_SLIDE 1
/* What mcu_conv2d_s8_dw_quads reads (offsets in its assembly, which copies it to sp + 0). */
typedef struct {
    const int8_t *x;        /* 0: slide: the first pair's first window pixel; table: NULL */
    int8_t *y;              /* 4: the first pair's first output pixel */
    int32_t pairs;          /* 8: slide: pairs in the run; table: 1 */
    const int32_t *kbias;   /* 12 */
    const float *scale;     /* 16: channel 0's scale, or four copies of the tensor's */
    int32_t scale_step;     /* 20: bytes from one channel's scale to the next one's: 4, or 0 per tensor */
    const void *w;          /* 24: slide: the weights; table: the pair's tap table (tab) */
    int32_t rs;             /* 28: slide: bytes from one kernel row's pixel to the next row's (dil_h * W * C) */
    int32_t c;              /* 32: channels run (slide: C; table: C rounded down to 4) */
    int32_t zp;             /* 36 */
    uint32_t lims[2];       /* 40, 44: qmin, qmax in every byte */
    int32_t clamp;          /* 48: [qmin, qmax] narrower than int8 */
    int32_t *defer;         /* 52: the second pixel's outputs until the pair is done */
    int32_t copy;           /* 56: bytes of defer copied to the second pixel after each pair (table: 0, the caller) */
    int32_t body;           /* 60: 0 table, 1 slide stride 1, 2 slide stride 2 */
    int32_t x_step;         /* 64: slide: bytes from one pair's first window to the next's (2 * stride * C) */
} mcu_conv2d_s8_dw_quads_args;
/* the table body's offsets: pixel 1's entries 100 bytes, the weights' 200 bytes after pixel 0's */
typedef char mcu_conv2d_s8_dw_table_offsets[MCU_CONV2D_S8_DW_X1 * 4 == 100 && MCU_CONV2D_S8_DW_W * 4 == 200 ? 1 : -1];

/* Accumulators r0-r3 (pixel 0), r4-r7 (pixel 1); a window's word split by SXTB16 into lanes 0, 2 (r11) and 1, 3
 * (r8), a weight word into r10 and r9; SMLABB / SMLATT. */
#define MCU_CONV2D_S8_DW_SPLIT(r, lo) "sxtb16 " lo ", " r "\n\tsxtb16 " r ", " r ", ror #8\n\t"
#define MCU_CONV2D_S8_DW_MACS(a0, a1, a2, a3)                                                                          \
    "smlabb " a0 ", r11, r10, " a0 "\n\t"                                                                              \
    "smlatt " a2 ", r11, r10, " a2 "\n\t"                                                                              \
    "smlabb " a1 ", r8, r9, " a1 "\n\t"                                                                                \
    "smlatt " a3 ", r8, r9, " a3 "\n\t"
#define MCU_CONV2D_S8_DW_P0 MCU_CONV2D_S8_DW_MACS("r0", "r1", "r2", "r3")
#define MCU_CONV2D_S8_DW_P1 MCU_CONV2D_S8_DW_MACS("r4", "r5", "r6", "r7")
/* Slide bodies: r12 walks the kernel row (x + ch + row offset + kx * C), lr = C; the row's weight word of column kx
 * at r12 + wd[ky] (sp + 92 + 4 ky: w + 3 ky C - x - ky rs, set per pair). */
#define MCU_CONV2D_S8_DW_WEIGHT(ky) "ldr r9, [sp, #(92 + 4 * " #ky ")]\n\tldr r9, [r12, r9]\n\t"
/* Stride 1, kernel row ky: the row's four words x0..x3 loaded and split once each, pixel 0 takes x0..x2, pixel 1
 * x1..x3, against the row's weights w0..w2, each loaded once and kept until pixel 1 used it with the next word. */
#define MCU_CONV2D_S8_DW_ROW1(ky)                                                                                      \
    "ldr r8, [r12]\n\t" MCU_CONV2D_S8_DW_WEIGHT(ky)                                                                    \
    MCU_CONV2D_S8_DW_SPLIT("r9", "r10") MCU_CONV2D_S8_DW_SPLIT("r8", "r11") MCU_CONV2D_S8_DW_P0                      \
    "add r12, r12, lr\n\t"                                                                                             \
    "ldr r8, [r12]\n\t" MCU_CONV2D_S8_DW_SPLIT("r8", "r11") MCU_CONV2D_S8_DW_P1                                        \
    MCU_CONV2D_S8_DW_WEIGHT(ky) MCU_CONV2D_S8_DW_SPLIT("r9", "r10") MCU_CONV2D_S8_DW_P0                               \
    "add r12, r12, lr\n\t"                                                                                             \
    "ldr r8, [r12]\n\t" MCU_CONV2D_S8_DW_SPLIT("r8", "r11") MCU_CONV2D_S8_DW_P1                                        \
    MCU_CONV2D_S8_DW_WEIGHT(ky) MCU_CONV2D_S8_DW_SPLIT("r9", "r10") MCU_CONV2D_S8_DW_P0                               \
    "ldr r8, [r12, lr]\n\t" MCU_CONV2D_S8_DW_SPLIT("r8", "r11") MCU_CONV2D_S8_DW_P1
/* Stride 2, column kx of kernel row ky: pixel 0's word and the weight, then pixel 1's word two pixels on. */
#define MCU_CONV2D_S8_DW_COL2(ky)                                                                                      \
    "ldr r8, [r12]\n\t" MCU_CONV2D_S8_DW_WEIGHT(ky)                                                                    \
    MCU_CONV2D_S8_DW_SPLIT("r9", "r10") MCU_CONV2D_S8_DW_SPLIT("r8", "r11") MCU_CONV2D_S8_DW_P0                      \
    "ldr r8, [r12, lr, lsl #1]\n\t" MCU_CONV2D_S8_DW_SPLIT("r8", "r11") MCU_CONV2D_S8_DW_P1
#define MCU_CONV2D_S8_DW_ROW2(ky)                                                                                      \
    MCU_CONV2D_S8_DW_COL2(ky) "add r12, r12, lr\n\t" MCU_CONV2D_S8_DW_COL2(ky) "add r12, r12, lr\n\t"               \
    MCU_CONV2D_S8_DW_COL2(ky)
/* The three kernel rows of a slide body (r12 ends 2 C into each row: rs - 2 C to the next, sp + 104; back to the
 * first row's start, sp + 108). */
#define MCU_CONV2D_S8_DW_SLIDE_BODY(row)                                                                               \
    row(0) "ldr r9, [sp, #104]\n\t"                                                                                    \
    "add r12, r12, r9\n\t" row(1) "ldr r9, [sp, #104]\n\t"                                                             \
    "add r12, r12, r9\n\t" row(2) "ldr r9, [sp, #108]\n\t"                                                             \
    "add r12, r12, r9\n\t"
#define MCU_CONV2D_S8_DW_SLIDE1 MCU_CONV2D_S8_DW_SLIDE_BODY(MCU_CONV2D_S8_DW_ROW1)
#define MCU_CONV2D_S8_DW_SLIDE2 MCU_CONV2D_S8_DW_SLIDE_BODY(MCU_CONV2D_S8_DW_ROW2)
/* Table body, tap t (lr: the pair's tap table, pixel 0's entry at 4t, pixel 1's at 100 + 4t, the weights' at
 * 200 + 4t; r12 the channel): the entries of pixel 0 and the weights, then their words (the four loads pipeline),
 * pixel 1's entry and word after pixel 0's products. */
#define MCU_CONV2D_S8_DW_TAP(t)                                                                                        \
    "ldr r8, [lr, #(4 * " #t ")]\n\t"                                                                                  \
    "ldr r9, [lr, #(200 + 4 * " #t ")]\n\t"                                                                            \
    "ldr r8, [r8, r12]\n\t"                                                                                            \
    "ldr r9, [r9, r12]\n\t"                                                                                            \
    MCU_CONV2D_S8_DW_SPLIT("r9", "r10") MCU_CONV2D_S8_DW_SPLIT("r8", "r11") MCU_CONV2D_S8_DW_P0                      \
    "ldr r8, [lr, #(100 + 4 * " #t ")]\n\t"                                                                            \
    "ldr r8, [r8, r12]\n\t"                                                                                            \
    MCU_CONV2D_S8_DW_SPLIT("r8", "r11") MCU_CONV2D_S8_DW_P1
#define MCU_CONV2D_S8_DW_TABLE                                                                                         \
    MCU_CONV2D_S8_DW_TAP(0) MCU_CONV2D_S8_DW_TAP(1) MCU_CONV2D_S8_DW_TAP(2) MCU_CONV2D_S8_DW_TAP(3)                    \
    MCU_CONV2D_S8_DW_TAP(4) MCU_CONV2D_S8_DW_TAP(5) MCU_CONV2D_S8_DW_TAP(6) MCU_CONV2D_S8_DW_TAP(7)                    \
    MCU_CONV2D_S8_DW_TAP(8)
/* The eight sums requantized: (float)acc * scale, VCVTR, + zp saturating, SSAT, four bytes a word (r0: pixel 0,
 * r4: pixel 1); the quad's scales from the channel in r12. */
#define MCU_CONV2D_S8_DW_RQ                                                                                            \
    "ldr r8, [sp, #84]\n\t"                                                                                            \
    "ldr r9, [sp, #20]\n\t"                                                                                            \
    "mla r8, r9, r12, r8\n\t"                                                                                          \
    "vldmia r8, {s8, s9, s10, s11}\n\t" MCU_CONV2D_S8_DW_RQ_SCALED
/* The same given the quad's four scales in s8-s11 and zp at sp + 36. */
#define MCU_CONV2D_S8_DW_RQ_SCALED                                                                                     \
    "vmov s0, s1, r0, r1\n\t"                                                                                          \
    "vmov s2, s3, r2, r3\n\t"                                                                                          \
    "vmov s4, s5, r4, r5\n\t"                                                                                          \
    "vmov s6, s7, r6, r7\n\t"                                                                                          \
    "vcvt.f32.s32 s0, s0\n\t"                                                                                          \
    "vcvt.f32.s32 s1, s1\n\t"                                                                                          \
    "vcvt.f32.s32 s2, s2\n\t"                                                                                          \
    "vcvt.f32.s32 s3, s3\n\t"                                                                                          \
    "vcvt.f32.s32 s4, s4\n\t"                                                                                          \
    "vcvt.f32.s32 s5, s5\n\t"                                                                                          \
    "vcvt.f32.s32 s6, s6\n\t"                                                                                          \
    "vcvt.f32.s32 s7, s7\n\t"                                                                                          \
    "vmul.f32 s0, s0, s8\n\t"                                                                                          \
    "vmul.f32 s1, s1, s9\n\t"                                                                                          \
    "vmul.f32 s2, s2, s10\n\t"                                                                                         \
    "vmul.f32 s3, s3, s11\n\t"                                                                                         \
    "vmul.f32 s4, s4, s8\n\t"                                                                                          \
    "vmul.f32 s5, s5, s9\n\t"                                                                                          \
    "vmul.f32 s6, s6, s10\n\t"                                                                                         \
    "vmul.f32 s7, s7, s11\n\t"                                                                                         \
    "vcvtr.s32.f32 s0, s0\n\t"                                                                                         \
    "vcvtr.s32.f32 s1, s1\n\t"                                                                                         \
    "vcvtr.s32.f32 s2, s2\n\t"                                                                                         \
    "vcvtr.s32.f32 s3, s3\n\t"                                                                                         \
    "vcvtr.s32.f32 s4, s4\n\t"                                                                                         \
    "vcvtr.s32.f32 s5, s5\n\t"                                                                                         \
    "vcvtr.s32.f32 s6, s6\n\t"                                                                                         \
    "vcvtr.s32.f32 s7, s7\n\t"                                                                                         \
    "vmov r0, r1, s0, s1\n\t"                                                                                          \
    "vmov r2, r3, s2, s3\n\t"                                                                                          \
    "vmov r4, r5, s4, s5\n\t"                                                                                          \
    "vmov r6, r7, s6, s7\n\t"                                                                                          \
    "ldr r8, [sp, #36]\n\t"                                                                                            \
    "qadd r0, r0, r8\n\t"                                                                                              \
    "qadd r1, r1, r8\n\t"                                                                                              \
    "qadd r2, r2, r8\n\t"                                                                                              \
    "qadd r3, r3, r8\n\t"                                                                                              \
    "qadd r4, r4, r8\n\t"                                                                                              \
    "qadd r5, r5, r8\n\t"                                                                                              \
    "qadd r6, r6, r8\n\t"                                                                                              \
    "qadd r7, r7, r8\n\t"                                                                                              \
    "ssat r0, #8, r0\n\t"                                                                                              \
    "ssat r1, #8, r1\n\t"                                                                                              \
    "ssat r2, #8, r2\n\t"                                                                                              \
    "ssat r3, #8, r3\n\t"                                                                                              \
    "ssat r4, #8, r4\n\t"                                                                                              \
    "ssat r5, #8, r5\n\t"                                                                                              \
    "ssat r6, #8, r6\n\t"                                                                                              \
    "ssat r7, #8, r7\n\t"                                                                                              \
    "bfi r0, r1, #8, #8\n\t"                                                                                           \
    "bfi r0, r2, #16, #8\n\t"                                                                                          \
    "bfi r0, r3, #24, #8\n\t"                                                                                          \
    "bfi r4, r5, #8, #8\n\t"                                                                                           \
    "bfi r4, r6, #16, #8\n\t"                                                                                          \
    "bfi r4, r7, #24, #8\n\t"
/* Bytewise max(v, qmin), min(v, qmax) of r0 and r4: SSUB8 sets GE, SEL picks. */
#define MCU_CONV2D_S8_DW_CLAMP                                                                                         \
    "ldr r8, [sp, #40]\n\t"                                                                                            \
    "ssub8 r9, r0, r8\n\t"                                                                                             \
    "sel r0, r0, r8\n\t"                                                                                               \
    "ssub8 r9, r4, r8\n\t"                                                                                             \
    "sel r4, r4, r8\n\t"                                                                                               \
    "ldr r8, [sp, #44]\n\t"                                                                                            \
    "ssub8 r9, r8, r0\n\t"                                                                                             \
    "sel r0, r0, r8\n\t"                                                                                               \
    "ssub8 r9, r8, r4\n\t"                                                                                             \
    "sel r4, r4, r8\n\t"
/* The quad loop of one body (label .Lmcu_dw_L): the accumulators from kbias, the body, the requantization, the
 * clamp when [qmin, qmax] is narrower than int8 (out of line), pixel 0's word to y[ch] at r12 + (y - x), pixel 1's to
 * defer[ch] at r12 + (defer - x); the next quad, or the pair's end. One copy per body: a quad pays no indirect jump
 * into its body and no branch out of it. */
#define MCU_CONV2D_S8_DW_QUADS(BODY, L)                                                                                \
    MCU_CONV2D_S8_ALIGN ".Lmcu_dw_" L ":\n\t"                                                                          \
    "ldr r8, [sp, #80]\n\t"                                                                                            \
    "add r8, r8, r12, lsl #2\n\t"                                                                                      \
    "ldmia r8, {r0, r1, r2, r3}\n\t"                                                                                   \
    "mov r4, r0\n\t"                                                                                                   \
    "mov r5, r1\n\t"                                                                                                   \
    "mov r6, r2\n\t"                                                                                                   \
    "mov r7, r3\n\t" BODY MCU_CONV2D_S8_DW_RQ                                                                          \
    "ldr r8, [sp, #48]\n\t"                                                                                            \
    "cmp r8, #0\n\t"                                                                                                   \
    "bne 2f\n"                                                                                                         \
    "3:\n\t"                                                                                                           \
    "ldr r8, [sp, #72]\n\t"                                                                                            \
    "ldr r9, [sp, #76]\n\t"                                                                                            \
    "str r0, [r12, r8]\n\t"                                                                                            \
    "str r4, [r12, r9]\n\t"                                                                                            \
    "add r12, r12, #4\n\t"                                                                                             \
    "ldr r8, [sp, #88]\n\t"                                                                                            \
    "cmp r12, r8\n\t"                                                                                                  \
    "bne .Lmcu_dw_" L "\n\t"                                                                                           \
    "b .Lmcu_dw_pair_end\n"                                                                                            \
    "2:\n\t" MCU_CONV2D_S8_DW_CLAMP "b 3b\n"
/* Seven argument words from r0 on to the frame at r8 (both stepped): the naked functions copy their arguments. */
#define MCU_CONV2D_S8_DW_COPY7 "ldmia r0!, {r1, r2, r3, r4, r5, r6, r7}\n\tstmia r8!, {r1, r2, r3, r4, r5, r6, r7}\n\t"
/* r2 = a label's address with the Thumb bit (for LDR PC) */
#define MCU_CONV2D_S8_DW_ADDR(label) "movw r2, #:lower16:" label "\n\tmovt r2, #:upper16:" label "\n\t"

/** Pixel pairs (q, q + 1), 3x3 windows, plain float requantization, four channels at a time: the accumulators from
 * kbias, the eight sums of one body, then the eight outputs requantized as mcu_conv2d_s8_dw_pack does, pixel 0's
 * word stored to y, pixel 1's to defer (copied to pixel 1's outputs after the pair when copy > 0). Bodies: slide
 * (runs of pairs in one output row, the next pair x_step on, windows wholly inside the input, undilated columns,
 * C % 4 == 0; stride 1: MCU_CONV2D_S8_DW_ROW1, stride 2: MCU_CONV2D_S8_DW_ROW2; r12 = x + ch, lr = C) and table
 * (one pair, any C: MCU_CONV2D_S8_DW_TAP over the pair's tap table in lr, r12 the channel, x = NULL). A whole
 * function in assembly: the bodies need all fourteen registers (-Og and unoptimized builds keep r7 for the frame).
 * Frame: the arguments at sp + 0 .. 64, then the body's address (68), y - x (72), defer - x (76), kbias - 4 x (80),
 * scale - scale_step x (84; channel ch's scale at that + scale_step (x + ch)), x + c (88), the rows' weight offsets
 * (92 .. 100), rs - 2 C (104), -2 (rs + C) (108). */
__attribute__((naked, noinline, unused)) static void mcu_conv2d_s8_dw_quads(const mcu_conv2d_s8_dw_quads_args *a
                                                                    MCU_CONV2D_S8_DW_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            "push {r4, r5, r6, r7, r8, r9, r10, r11, lr}\n\t"
            "sub sp, sp, #116\n\t"
            "mov r8, sp\n\t" MCU_CONV2D_S8_DW_COPY7 MCU_CONV2D_S8_DW_COPY7
            "ldmia r0!, {r1, r2, r3}\n\t"
            "stmia r8!, {r1, r2, r3}\n\t"
            "ldr r1, [sp, #28]\n\t" /* rs - 2 C, -2 (rs + C) */
            "ldr r3, [sp, #32]\n\t"
            "sub r2, r1, r3, lsl #1\n\t"
            "str r2, [sp, #104]\n\t"
            "add r2, r1, r3\n\t"
            "rsb r2, r2, #0\n\t"
            "lsl r2, r2, #1\n\t"
            "str r2, [sp, #108]\n\t"
            "ldr r3, [sp, #60]\n\t" /* the body */
            MCU_CONV2D_S8_DW_ADDR(".Lmcu_dw_table")
            "cmp r3, #1\n\t"
            "blt 1f\n\t"
            MCU_CONV2D_S8_DW_ADDR(".Lmcu_dw_slide1")
            "beq 1f\n\t"
            MCU_CONV2D_S8_DW_ADDR(".Lmcu_dw_slide2")
            "1:\n\t"
            "orr r2, r2, #1\n\t"
            "str r2, [sp, #68]\n"
            ".Lmcu_dw_pair:\n\t" /* r12 = x; lr = tab or C; y - x, defer - x, kbias - 4 x, scale - step x, x + c;
                                     the weight offsets */
            "ldr r12, [sp, #0]\n\t"
            "ldr r3, [sp, #60]\n\t"
            "cmp r3, #0\n\t"
            "ite eq\n\t"
            "ldreq lr, [sp, #24]\n\t"
            "ldrne lr, [sp, #32]\n\t"
            "ldr r1, [sp, #4]\n\t"
            "sub r1, r1, r12\n\t"
            "ldr r2, [sp, #52]\n\t"
            "sub r2, r2, r12\n\t"
            "ldr r3, [sp, #12]\n\t"
            "sub r3, r3, r12, lsl #2\n\t"
            "ldr r4, [sp, #16]\n\t"
            "ldr r5, [sp, #20]\n\t"
            "mls r4, r5, r12, r4\n\t"
            "ldr r5, [sp, #32]\n\t"
            "add r5, r5, r12\n\t"
            "add r6, sp, #72\n\t"
            "stmia r6, {r1, r2, r3, r4, r5}\n\t"
            "ldr r1, [sp, #24]\n\t" /* wd[ky] = w - x + ky (3 C - rs) */
            "sub r1, r1, r12\n\t"
            "ldr r2, [sp, #32]\n\t"
            "add r2, r2, r2, lsl #1\n\t"
            "ldr r3, [sp, #28]\n\t"
            "sub r2, r2, r3\n\t"
            "add r3, r1, r2\n\t"
            "add r4, r3, r2\n\t"
            "add r6, sp, #92\n\t"
            "stmia r6, {r1, r3, r4}\n"
            "ldr pc, [sp, #68]\n\t" /* the body's quad loop */
            MCU_CONV2D_S8_DW_QUADS(MCU_CONV2D_S8_DW_TABLE, "table")
            MCU_CONV2D_S8_DW_QUADS(MCU_CONV2D_S8_DW_SLIDE1, "slide1")
            MCU_CONV2D_S8_DW_QUADS(MCU_CONV2D_S8_DW_SLIDE2, "slide2")
            ".Lmcu_dw_pair_end:\n\t"
            "ldr r10, [sp, #56]\n\t" /* the pair's second pixel from defer */
            "cmp r10, #0\n\t"
            "beq 4f\n\t"
            "ldr r8, [sp, #52]\n\t"
            "ldr r9, [sp, #4]\n\t"
            "add r9, r9, r10\n\t"
            "tst r10, #15\n\t" /* C % 16 == 0: four words a turn (LDM from defer; STR: y may be unaligned) */
            "bne 7f\n\t" MCU_CONV2D_S8_ALIGN
            "3:\n\t"
            "ldmia r8!, {r4, r5, r6, r7}\n\t"
            "str r4, [r9], #4\n\t"
            "str r5, [r9], #4\n\t"
            "str r6, [r9], #4\n\t"
            "str r7, [r9], #4\n\t"
            "subs r10, r10, #16\n\t"
            "bne 3b\n\t"
            "b 4f\n\t" MCU_CONV2D_S8_ALIGN
            "7:\n\t" /* else word by word */
            "ldr r11, [r8], #4\n\t"
            "subs r10, r10, #4\n\t"
            "str r11, [r9], #4\n\t"
            "bne 7b\n"
            "4:\n\t" /* the next pair: x one step (r9), y two pixels on; the frame's offsets from x stepped */
            "ldr r8, [sp, #8]\n\t"
            "subs r8, r8, #1\n\t"
            "beq 5f\n\t"
            "str r8, [sp, #8]\n\t"
            "ldr r10, [sp, #32]\n\t"
            "ldr r9, [sp, #64]\n\t"
            "ldr r12, [sp, #0]\n\t"
            "ldr r8, [sp, #4]\n\t"
            "add r12, r12, r9\n\t"
            "add r8, r8, r10, lsl #1\n\t"
            "str r12, [sp, #0]\n\t"
            "str r8, [sp, #4]\n\t"
            "add r6, sp, #72\n\t" /* y - x, defer - x, kbias - 4 x, scale - step x, x + c */
            "ldmia r6, {r1, r2, r3, r4, r5}\n\t"
            "sub r1, r1, r9\n\t"
            "add r1, r1, r10, lsl #1\n\t"
            "sub r2, r2, r9\n\t"
            "sub r3, r3, r9, lsl #2\n\t"
            "ldr r7, [sp, #20]\n\t"
            "mls r4, r7, r9, r4\n\t"
            "add r5, r5, r9\n\t"
            "stmia r6!, {r1, r2, r3, r4, r5}\n\t" /* r6 = sp + 92: the rows' weight offsets wd[ky] = w - x + .. */
            "ldmia r6, {r1, r3, r4}\n\t"
            "sub r1, r1, r9\n\t"
            "sub r3, r3, r9\n\t"
            "sub r4, r4, r9\n\t"
            "stmia r6, {r1, r3, r4}\n\t"
            "ldr pc, [sp, #68]\n"
            "5:\n\t"
            "add sp, sp, #116\n\t"
            "pop {r4, r5, r6, r7, r8, r9, r10, r11, pc}");
}

/* What mcu_conv2d_s8_dw_rows reads (offsets in its assembly, which copies the first 152 bytes to sp + 0 and the
 * scales to s8-s11; zp, lims and clamp where mcu_conv2d_s8_dw_quads keeps them, for MCU_CONV2D_S8_DW_RQ_SCALED and
 * MCU_CONV2D_S8_DW_CLAMP). The row buffers are three runs of W + 3 words (word 0: input column -1) at byte offsets
 * prev, cur and next from rows; every word the assembly does not stage holds zp4. */
typedef struct {
    uint8_t *rows;         /* 0: the row buffers */
    int8_t *y;             /* 4: the pair's pixel 0 (set per row from y_row) */
    int32_t left;          /* 8: pixels of the row still to write (set per row) */
    int32_t cur_off;       /* 12: bytes from prev to cur (set per row) */
    int32_t next_off;      /* 16: bytes from prev to next (set per row) */
    int32_t c;             /* 20: bytes from one pixel to the next in x and y (C) */
    const int32_t *kbias;  /* 24: the block's four accumulator starts */
    int32_t w;             /* 28: pixels in a row (W) */
    int32_t h;             /* 32: output rows still to go */
    int32_t zp;            /* 36 */
    uint32_t lims[2];      /* 40, 44: qmin, qmax in every byte */
    int32_t clamp;         /* 48: [qmin, qmax] narrower than int8 */
    const int8_t *x_next;  /* 52: input row oy + 1 at the block (staged while h > 1) */
    int32_t ws[18];        /* 56: tap t's weight word split: lanes 0, 2 at 56 + 8 t, lanes 1, 3 at 60 + 8 t */
    int32_t prev, cur;     /* 128, 132: byte offsets of the rows oy - 1 and oy */
    int32_t next;          /* 136: byte offset of row oy + 1 */
    int32_t row_bytes;     /* 140: W * C */
    uint32_t zp4;          /* 144: x_zp in every byte (the padding below the last row) */
    int8_t *y_row;         /* 148: output row oy at the block */
    float scale[4];        /* 152: the block's four scales */
} mcu_conv2d_s8_dw_rows_args;
typedef char mcu_conv2d_s8_dw_rows_offsets[offsetof(mcu_conv2d_s8_dw_rows_args, ws) == 56 &&
                                           offsetof(mcu_conv2d_s8_dw_rows_args, prev) == 128 &&
                                           offsetof(mcu_conv2d_s8_dw_rows_args, scale) == 152 ? 1 : -1];

/* Tap t's weight lanes into r10 (channels 0, 2) and r9 (1, 3). */
#define MCU_CONV2D_S8_DW_ROWS_W(t) "ldr r10, [sp, #(56 + 8 * " #t ")]\n\tldr r9, [sp, #(60 + 8 * " #t ")]\n\t"
/* One staged window row from register B: its four words x0..x3, each loaded and split once; pixel 0 takes x0..x2,
 * pixel 1 x1..x3, against taps t0..t0 + 2, each weight kept until pixel 1 used it with the next word. */
#define MCU_CONV2D_S8_DW_ROWS_ROW(B, t0, t1, t2)                                                                       \
    "ldr r8, [" B ", #0]\n\t" MCU_CONV2D_S8_DW_SPLIT("r8", "r11") MCU_CONV2D_S8_DW_ROWS_W(t0) MCU_CONV2D_S8_DW_P0     \
    "ldr r8, [" B ", #4]\n\t" MCU_CONV2D_S8_DW_SPLIT("r8", "r11") MCU_CONV2D_S8_DW_P1 MCU_CONV2D_S8_DW_ROWS_W(t1)     \
    MCU_CONV2D_S8_DW_P0                                                                                                \
    "ldr r8, [" B ", #8]\n\t" MCU_CONV2D_S8_DW_SPLIT("r8", "r11") MCU_CONV2D_S8_DW_P1 MCU_CONV2D_S8_DW_ROWS_W(t2)     \
    MCU_CONV2D_S8_DW_P0                                                                                                \
    "ldr r8, [" B ", #12]\n\t" MCU_CONV2D_S8_DW_SPLIT("r8", "r11") MCU_CONV2D_S8_DW_P1

/** Every output row of one four-channel block of one image from the staged rows (mcu_conv2d_s8_dw_ring_rows): per
 * row, input row oy + 1 staged (or the padding below the last row), then the pixel pairs, r12 walking the row
 * above two words a pair, the rows of the outputs and below at fixed offsets from it (lr); the accumulators from
 * kbias, the 3x3 taps, requantization as mcu_conv2d_s8_dw_quads does (the scales held in s8-s11), pixel 0's word
 * stored, pixel 1's unless the row ends on a lone pixel (its pair reads the third padding word and drops the
 * result); then the three rows' roles rotate. Frame: the arguments up to the scales at sp + 0 .. 152. */
__attribute__((naked, noinline, unused)) static void mcu_conv2d_s8_dw_rows(const mcu_conv2d_s8_dw_rows_args *a
                                                                   MCU_CONV2D_S8_DW_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            "push {r4, r5, r6, r7, r8, r9, r10, r11, lr}\n\t"
            "sub sp, sp, #156\n\t"
            "mov r8, sp\n\t" MCU_CONV2D_S8_DW_COPY7 MCU_CONV2D_S8_DW_COPY7 MCU_CONV2D_S8_DW_COPY7
            MCU_CONV2D_S8_DW_COPY7 MCU_CONV2D_S8_DW_COPY7
            "ldmia r0!, {r1, r2, r3}\n\t"
            "stmia r8!, {r1, r2, r3}\n\t"
            "vldmia r0, {s8, s9, s10, s11}\n"
            ".Lmcu_dw_rows_row:\n\t" /* stage input row oy + 1 into next, or the padding below the last row */
            "ldr r0, [sp, #0]\n\t"
            "ldr r1, [sp, #136]\n\t"
            "add r0, r0, r1\n\t"
            "add r0, r0, #4\n\t"
            "ldr r2, [sp, #28]\n\t"
            "ldr r3, [sp, #32]\n\t"
            "cmp r3, #1\n\t"
            "ble 6f\n\t"
            "ldr r1, [sp, #52]\n\t"
            "ldr r3, [sp, #20]\n\t"
            "add r5, r1, r3\n\t" /* two words a turn, then an odd last one */
            "lsl r3, r3, #1\n\t"
            "subs r2, r2, #2\n\t"
            "blt 8f\n"
            "7:\n\t"
            "ldr r4, [r1]\n\t"
            "ldr r6, [r5]\n\t"
            "add r1, r1, r3\n\t"
            "add r5, r5, r3\n\t"
            "strd r4, r6, [r0], #8\n\t"
            "subs r2, r2, #2\n\t"
            "bge 7b\n"
            "8:\n\t"
            "adds r2, r2, #2\n\t"
            "itt ne\n\t"
            "ldrne r4, [r1]\n\t"
            "strne r4, [r0]\n\t"
            "ldr r1, [sp, #52]\n\t"
            "ldr r3, [sp, #140]\n\t"
            "add r1, r1, r3\n\t"
            "str r1, [sp, #52]\n\t"
            "b 9f\n"
            "6:\n\t"
            "ldr r4, [sp, #144]\n"
            "1:\n\t"
            "str r4, [r0], #4\n\t"
            "subs r2, r2, #1\n\t"
            "bne 1b\n"
            "9:\n\t" /* the row's pairs: r12 = rows + prev; cur, next as offsets from it; y, left */
            "add r6, sp, #128\n\t"
            "ldmia r6, {r1, r2, r3}\n\t"
            "ldr r12, [sp, #0]\n\t"
            "add r12, r12, r1\n\t"
            "sub r2, r2, r1\n\t"
            "sub r3, r3, r1\n\t"
            "str r2, [sp, #12]\n\t"
            "str r3, [sp, #16]\n\t"
            "ldr r4, [sp, #148]\n\t"
            "ldr r5, [sp, #28]\n\t"
            "str r4, [sp, #4]\n\t"
            "str r5, [sp, #8]\n\t" MCU_CONV2D_S8_ALIGN
            ".Lmcu_dw_rows_pair:\n\t"
            "ldr r8, [sp, #24]\n\t"
            "ldmia r8, {r0, r1, r2, r3}\n\t"
            "mov r4, r0\n\t"
            "mov r5, r1\n\t"
            "mov r6, r2\n\t"
            "mov r7, r3\n\t"
            MCU_CONV2D_S8_DW_ROWS_ROW("r12", 0, 1, 2)
            "ldr lr, [sp, #12]\n\t"
            "add lr, r12, lr\n\t"
            MCU_CONV2D_S8_DW_ROWS_ROW("lr", 3, 4, 5)
            "ldr lr, [sp, #16]\n\t"
            "add lr, r12, lr\n\t"
            MCU_CONV2D_S8_DW_ROWS_ROW("lr", 6, 7, 8)
            MCU_CONV2D_S8_DW_RQ_SCALED
            "ldr r8, [sp, #48]\n\t"
            "cmp r8, #0\n\t"
            "beq 3f\n\t" MCU_CONV2D_S8_DW_CLAMP
            "3:\n\t" /* pixel 0's word; pixel 1's while the row has one; the next pair */
            "ldr r8, [sp, #4]\n\t"
            "ldr r9, [sp, #20]\n\t"
            "ldr r10, [sp, #8]\n\t"
            "str r0, [r8]\n\t"
            "subs r10, r10, #2\n\t"
            "it ge\n\t"
            "strge r4, [r8, r9]\n\t"
            "ble 5f\n\t"
            "add r8, r8, r9, lsl #1\n\t"
            "str r10, [sp, #8]\n\t"
            "str r8, [sp, #4]\n\t"
            "add r12, r12, #8\n\t"
            "b .Lmcu_dw_rows_pair\n"
            "5:\n\t" /* the row's end: the rows' roles rotate (prev <- cur <- next <- prev), y one row on */
            "add r6, sp, #128\n\t"
            "ldmia r6, {r1, r2, r3}\n\t"
            "stmia r6, {r2, r3}\n\t"
            "str r1, [sp, #136]\n\t"
            "ldr r4, [sp, #148]\n\t"
            "ldr r5, [sp, #140]\n\t"
            "add r4, r4, r5\n\t"
            "str r4, [sp, #148]\n\t"
            "ldr r3, [sp, #32]\n\t"
            "subs r3, r3, #1\n\t"
            "str r3, [sp, #32]\n\t"
            "bne .Lmcu_dw_rows_row\n\t"
            "add sp, sp, #156\n\t"
            "pop {r4, r5, r6, r7, r8, r9, r10, r11, pc}");
}
#undef MCU_CONV2D_S8_DW_ROWS_ROW
#undef MCU_CONV2D_S8_DW_ROWS_W
#undef MCU_CONV2D_S8_DW_ADDR
#undef MCU_CONV2D_S8_DW_COPY7
#undef MCU_CONV2D_S8_DW_QUADS
#undef MCU_CONV2D_S8_DW_CLAMP
#undef MCU_CONV2D_S8_DW_RQ
#undef MCU_CONV2D_S8_DW_RQ_SCALED
#undef MCU_CONV2D_S8_DW_TABLE
#undef MCU_CONV2D_S8_DW_TAP
#undef MCU_CONV2D_S8_DW_SLIDE2
#undef MCU_CONV2D_S8_DW_SLIDE1
#undef MCU_CONV2D_S8_DW_SLIDE_BODY
#undef MCU_CONV2D_S8_DW_ROW2
#undef MCU_CONV2D_S8_DW_COL2
#undef MCU_CONV2D_S8_DW_ROW1
#undef MCU_CONV2D_S8_DW_WEIGHT
#undef MCU_CONV2D_S8_DW_P1
#undef MCU_CONV2D_S8_DW_P0
#undef MCU_CONV2D_S8_DW_MACS
#undef MCU_CONV2D_S8_DW_SPLIT

/** True when mcu_conv2d_s8_dw_quads has a slide body for C = c channels and stride s. */
MCU_CONV2D_S8_SHARED
static int32_t mcu_conv2d_s8_dw_slide_c(int32_t c, int32_t s)
{
    return c % 4 == 0 && (s == 1 || s == 2);
}
#else
#define MCU_CONV2D_S8_DW_SLIDE 0
#endif

#if !MCU_CONV2D_S8_DW_DSP && defined(__GNUC__) && defined(__thumb__) && !defined(__thumb2__)
/* ARMv6-M: 3x3 pixel pairs in assembly with the fixed-mode requantization (double rounding) inside, for
 * qmin <= zp <= qmax (mcu_conv2d_s8_dw_pairs_v6m). What the assembly reads: a tap table of 27 pointers (within
 * reach of LDR's immediate offset from one base: pixel 0's nine taps, pixel 1's, the weights' tap rows), then the
 * fields it copies to its stack. */
typedef struct {
    const int8_t *tab[27]; /* 0 */
    int32_t nlo, hi, zp;   /* 108: zp - qmin, qmax - zp, zp */
    int32_t c;             /* 120 */
    const int32_t *kbias;  /* 124 */
    const int32_t *mult;   /* 128 */
    const int32_t *shift;  /* 132 */
    int32_t pcmask;        /* 136: -per_channel (a channel's byte offset in mult and shift is (4 ch) & pcmask) */
    int8_t *y0, *y1;       /* 140, 144 */
    int32_t at, d;         /* 148, 152: both windows inside: pixel 0's window start in x, pixel 1's from there */
} mcu_conv2d_s8_dw_v6m_args;
typedef char mcu_conv2d_s8_dw_v6m_layout[offsetof(mcu_conv2d_s8_dw_v6m_args, nlo) == 108 &&
                                         offsetof(mcu_conv2d_s8_dw_v6m_args, d) == 152 ? 1 : -1];

/* The naked functions' entry: r4-r11 and lr saved, r8-r10 = nlo, hi, zp, r11 = 2^30, the table (a) in r4, then
 * the fields c, kbias, mult, shift, pcmask, y0, y1 pushed (sp + 0 .. 24) above EXTRA bytes of locals. */
#define MCU_CONV2D_S8_DW_V6M_ENTER(EXTRA)                                                                          \
    MCU_CONV2D_S8_V6M_ENTER                                                                                        \
    "sub sp, #" #EXTRA "\n\t"                                                                                      \
    "mov r4, r0\n\t"                                                                                               \
    "adds r0, #108\n\t"                                                                                            \
    "ldm r0!, {r1, r2, r3}\n\t"                                                                                    \
    "mov r8, r1\n\t"                                                                                               \
    "mov r9, r2\n\t"                                                                                               \
    "mov r10, r3\n\t"                                                                                              \
    "ldr r1, [r0, #24]\n\t"                                                                                        \
    "push {r1}\n\t"                                                                                                \
    "ldm r0, {r0, r1, r2, r3, r5, r6}\n\t"                                                                         \
    "push {r0, r1, r2, r3, r5, r6}\n\t"                                                                            \
    "movs r6, #1\n\t"                                                                                              \
    "lsls r6, r6, #30\n\t"                                                                                         \
    "mov r11, r6\n\t"
#define MCU_CONV2D_S8_DW_V6M_LEAVE(EXTRA)                                                                          \
    "add sp, #(28 + " #EXTRA ")\n\t"                                                                               \
    MCU_CONV2D_S8_V6M_LEAVE

/* The channel loop of the pair and lone-pixel functions: entry, r5 = channel 0 .., r0 = its kbias, BODY, then the
 * next channel until c (the branch back is beyond a conditional branch's reach), exit. */
#define MCU_CONV2D_S8_DW_V6M_CHANNELS(BODY)                                                                        \
    MCU_CONV2D_S8_DW_V6M_ENTER(0)                                                                                  \
    "movs r5, #0\n"                                                                                                \
    "4:\n\t"                                                                                                       \
    "ldr r1, [sp, #4]\n\t"                                                                                         \
    "lsls r0, r5, #2\n\t"                                                                                          \
    "ldr r0, [r1, r0]\n\t" BODY                                                                                    \
    "adds r5, #1\n\t"                                                                                              \
    "ldr r6, [sp, #0]\n\t"                                                                                         \
    "cmp r5, r6\n\t"                                                                                               \
    "bge 7f\n\t"                                                                                                   \
    "b 4b\n"                                                                                                       \
    "7:\n\t" MCU_CONV2D_S8_DW_V6M_LEAVE(0)

/* The output's store (MCU_CONV2D_S8_V6M_RQ_OUT): at the stack slot YSLOT's pointer plus the channel (r5). */
#define MCU_CONV2D_S8_DW_V6M_STORE(YSLOT) "ldr r6, [sp, #" #YSLOT "]\n\tstrb r3, [r6, r5]\n\t"

/* Channel r5's requantization parameters for its accumulators r3 (pixel 0) and lr (pixel 1): mult and shift read
 * and split once, a left shift applied to both accumulators, ip = 2^e >> 1 (MCU_CONV2D_S8_V6M_RQ_OUT's registers);
 * r4 and r5 are kept. */
#define MCU_CONV2D_S8_DW_V6M_RQ_HEAD                                                                               \
    "ldr r6, [sp, #16]\n\t" /* the channel's offset in mult and shift */                                          \
    "lsls r2, r5, #2\n\t"                                                                                          \
    "ands r2, r6\n\t"                                                                                              \
    "ldr r6, [sp, #8]\n\t"                                                                                         \
    "ldr r0, [r6, r2]\n\t"                                                                                         \
    "ldr r6, [sp, #12]\n\t"                                                                                        \
    "ldr r2, [r6, r2]\n\t"                                                                                         \
    "sxth r1, r0\n\t"                                                                                              \
    "asrs r0, r0, #15\n\t"                                                                                         \
    "adds r0, #1\n\t"                                                                                              \
    "asrs r0, r0, #1\n\t"                                                                                          \
    "cmp r2, #0\n\t"                                                                                               \
    "bge 5f\n\t"                                                                                                   \
    "negs r2, r2\n\t" /* a left shift (rare): both accumulators, wrapping, then e = 0 */                          \
    "lsls r3, r2\n\t"                                                                                              \
    "mov r6, lr\n\t"                                                                                               \
    "lsls r6, r2\n\t"                                                                                              \
    "mov lr, r6\n\t"                                                                                               \
    "movs r2, #0\n"                                                                                                \
    "5:\n\t"                                                                                                       \
    "movs r6, #1\n\t"                                                                                              \
    "lsls r6, r2\n\t"                                                                                              \
    "lsrs r6, r6, #1\n\t"                                                                                          \
    "mov ip, r6\n\t"
/* Channel r5's two outputs, to y0 and y1. */
#define MCU_CONV2D_S8_DW_V6M_RQ                                                                                    \
    MCU_CONV2D_S8_DW_V6M_RQ_HEAD                                                                                   \
    MCU_CONV2D_S8_V6M_RQ_OUT(MCU_CONV2D_S8_DW_V6M_STORE(20))                                                       \
    "mov r3, lr\n\t"                                                                                               \
    MCU_CONV2D_S8_V6M_RQ_OUT(MCU_CONV2D_S8_DW_V6M_STORE(24))

/* One tap of both pixels from the table (r4): pointers at X0, X1, W, the channel r5 as offset; accumulators r0
 * (pixel 0), r7 (pixel 1). */
#define MCU_CONV2D_S8_DW_V6M_TAP(X0, X1, W)                                                                         \
    "ldr r1, [r4, #" #X0 "]\n\t"                                                                                   \
    "ldrsb r2, [r1, r5]\n\t"                                                                                       \
    "ldr r1, [r4, #" #W "]\n\t"                                                                                    \
    "ldrsb r6, [r1, r5]\n\t"                                                                                       \
    "ldr r1, [r4, #" #X1 "]\n\t"                                                                                   \
    "ldrsb r3, [r1, r5]\n\t"                                                                                       \
    "muls r2, r6\n\t"                                                                                              \
    "adds r0, r2\n\t"                                                                                              \
    "muls r3, r6\n\t"                                                                                              \
    "adds r7, r3\n\t"

/** Every channel of a 3x3 pixel pair from its tap table (mcu_conv2d_s8_dw_v6m_args): per channel the two
 * accumulators from kbias, nine taps of three LDRSB, two MULS, two ADDS each (16 cycles), then
 * MCU_CONV2D_S8_DW_V6M_RQ. */
__attribute__((naked, noinline, unused)) static void mcu_conv2d_s8_dw_pair_v6m(const mcu_conv2d_s8_dw_v6m_args *a
                                                                       __attribute__((unused)))
{
    __asm__(".syntax unified\n\t" MCU_CONV2D_S8_DW_V6M_CHANNELS(
            "mov r7, r0\n\t"
            MCU_CONV2D_S8_DW_V6M_TAP(0, 36, 72)
            MCU_CONV2D_S8_DW_V6M_TAP(4, 40, 76)
            MCU_CONV2D_S8_DW_V6M_TAP(8, 44, 80)
            MCU_CONV2D_S8_DW_V6M_TAP(12, 48, 84)
            MCU_CONV2D_S8_DW_V6M_TAP(16, 52, 88)
            MCU_CONV2D_S8_DW_V6M_TAP(20, 56, 92)
            MCU_CONV2D_S8_DW_V6M_TAP(24, 60, 96)
            MCU_CONV2D_S8_DW_V6M_TAP(28, 64, 100)
            MCU_CONV2D_S8_DW_V6M_TAP(32, 68, 104)
            "mov r3, r0\n\t"
            "mov lr, r7\n\t"
            MCU_CONV2D_S8_DW_V6M_RQ));
}

/* One tap of pixel 0 alone: accumulator r0. */
#define MCU_CONV2D_S8_DW_V6M_TAP1(X0, W)                                                                            \
    "ldr r1, [r4, #" #X0 "]\n\t"                                                                                   \
    "ldrsb r2, [r1, r5]\n\t"                                                                                       \
    "ldr r1, [r4, #" #W "]\n\t"                                                                                    \
    "ldrsb r6, [r1, r5]\n\t"                                                                                       \
    "muls r2, r6\n\t"                                                                                              \
    "adds r0, r2\n\t"

/** mcu_conv2d_s8_dw_pair_v6m for pixel 0 alone (an odd last pixel): its table's nine taps, one output per
 * channel, to y0. */
__attribute__((naked, noinline, unused)) static void mcu_conv2d_s8_dw_one_v6m(const mcu_conv2d_s8_dw_v6m_args *a
                                                                      __attribute__((unused)))
{
    __asm__(".syntax unified\n\t" MCU_CONV2D_S8_DW_V6M_CHANNELS(
            MCU_CONV2D_S8_DW_V6M_TAP1(0, 72)
            MCU_CONV2D_S8_DW_V6M_TAP1(4, 76)
            MCU_CONV2D_S8_DW_V6M_TAP1(8, 80)
            MCU_CONV2D_S8_DW_V6M_TAP1(12, 84)
            MCU_CONV2D_S8_DW_V6M_TAP1(16, 88)
            MCU_CONV2D_S8_DW_V6M_TAP1(20, 92)
            MCU_CONV2D_S8_DW_V6M_TAP1(24, 96)
            MCU_CONV2D_S8_DW_V6M_TAP1(28, 100)
            MCU_CONV2D_S8_DW_V6M_TAP1(32, 104)
            "mov r3, r0\n\t"
            MCU_CONV2D_S8_DW_V6M_RQ_HEAD
            MCU_CONV2D_S8_V6M_RQ_OUT(MCU_CONV2D_S8_DW_V6M_STORE(20))));
}

/* One tap of both pixels whose windows lie inside the input: X0 = the tap's offset from a window start (as a
 * pointer into x), W = the weights' row; r5 = pixel 0's window start + the channel, r0 = that + d (pixel 1), r7 =
 * the channel; accumulators ip, lr. */
#define MCU_CONV2D_S8_DW_V6M_TAP_IN(X0, W)                                                                          \
    "ldr r1, [r4, #" #X0 "]\n\t"                                                                                   \
    "ldrsb r2, [r1, r5]\n\t"                                                                                       \
    "ldrsb r3, [r1, r0]\n\t"                                                                                       \
    "ldr r1, [r4, #" #W "]\n\t"                                                                                    \
    "ldrsb r6, [r1, r7]\n\t"                                                                                       \
    "muls r2, r6\n\t"                                                                                              \
    "add ip, r2\n\t"                                                                                               \
    "muls r3, r6\n\t"                                                                                              \
    "add lr, r3\n\t"

/** mcu_conv2d_s8_dw_pair_v6m for two windows inside the input (a->at, a->d; the table's first nine entries are x
 * plus the taps' offsets): the x pointer of a tap serves both pixels, 14 cycles a tap. Locals: d, the table
 * (sp + 28, 32). */
__attribute__((naked, noinline, unused)) static void mcu_conv2d_s8_dw_pair_in_v6m(const mcu_conv2d_s8_dw_v6m_args *a
                                                                          __attribute__((unused)))
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_DW_V6M_ENTER(8)
            "str r4, [sp, #32]\n\t"
            "mov r1, r4\n\t"
            "adds r1, #124\n\t"
            "ldr r3, [r1, #24]\n\t" /* at */
            "ldr r2, [r1, #28]\n\t" /* d */
            "str r2, [sp, #28]\n\t"
            "movs r7, #0\n\t"
            "mov r5, r3\n" /* at + channel */
            "4:\n\t" /* channel r7 */
            "ldr r0, [sp, #28]\n\t"
            "adds r0, r5\n\t"
            "ldr r1, [sp, #4]\n\t"
            "lsls r2, r7, #2\n\t"
            "ldr r2, [r1, r2]\n\t"
            "mov ip, r2\n\t"
            "mov lr, r2\n\t"
            MCU_CONV2D_S8_DW_V6M_TAP_IN(0, 72)
            MCU_CONV2D_S8_DW_V6M_TAP_IN(4, 76)
            MCU_CONV2D_S8_DW_V6M_TAP_IN(8, 80)
            MCU_CONV2D_S8_DW_V6M_TAP_IN(12, 84)
            MCU_CONV2D_S8_DW_V6M_TAP_IN(16, 88)
            MCU_CONV2D_S8_DW_V6M_TAP_IN(20, 92)
            MCU_CONV2D_S8_DW_V6M_TAP_IN(24, 96)
            MCU_CONV2D_S8_DW_V6M_TAP_IN(28, 100)
            MCU_CONV2D_S8_DW_V6M_TAP_IN(32, 104)
            "mov r3, ip\n\t"
            "mov r4, r5\n\t" /* at + channel, while r5 holds the channel */
            "mov r5, r7\n\t"
            MCU_CONV2D_S8_DW_V6M_RQ
            "adds r5, #1\n\t"
            "ldr r6, [sp, #0]\n\t"
            "cmp r5, r6\n\t"
            "bge 7f\n\t"
            "mov r7, r5\n\t"
            "adds r5, r4, #1\n\t"
            "ldr r4, [sp, #32]\n\t"
            "b 4b\n"
            "7:\n\t"
            MCU_CONV2D_S8_DW_V6M_LEAVE(8));
}
#undef MCU_CONV2D_S8_DW_V6M_TAP
#undef MCU_CONV2D_S8_DW_V6M_TAP_IN
#undef MCU_CONV2D_S8_DW_V6M_TAP1
#undef MCU_CONV2D_S8_DW_V6M_RQ
#undef MCU_CONV2D_S8_DW_V6M_RQ_HEAD
#undef MCU_CONV2D_S8_DW_V6M_STORE
#undef MCU_CONV2D_S8_DW_V6M_ENTER
#undef MCU_CONV2D_S8_DW_V6M_LEAVE
#undef MCU_CONV2D_S8_DW_V6M_CHANNELS
#define MCU_CONV2D_S8_DW_V6M 1
#else
#define MCU_CONV2D_S8_DW_V6M 0
#endif

/** Channels ch .. C - 1 of both pixels of a pair (ch > 0: the quads before it ran in mcu_conv2d_s8_dw_quads), the
 * 3x3 tap loops unrolled. Per tap and four channels (DSP) one weight word is split into lanes (0, 2) and (1, 3) by
 * SXTB16 and multiplied with both windows' words (SMLABB / SMLATT); all addresses are a table entry plus the
 * channel. */
static MCU_INLINE void mcu_conv2d_s8_dw_pair(const mcu_conv2d_s8_params *p, const mcu_requant *rq,
                                                       int32_t plain, const int8_t *const *tab, int32_t taps,
                                                       int8_t *y0, int8_t *y1, int32_t ch)
{
    const int32_t c = p->g.c_in;
    int32_t t;
#if defined(__ARM_FEATURE_DSP)
    const int32_t step = rq->per_channel ? 1 : 0;
    uint32_t lims[2];
    const int32_t clamp = mcu_conv2d_s8_dw_limits(rq, lims);
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
                mcu_conv2d_s8_dw_pair_tap(tab, t, ch, acc);
            }
        } else {
            for (t = 0; t < taps; ++t) {
                mcu_conv2d_s8_dw_pair_tap(tab, t, ch, acc);
            }
        }
        /* both words before either store: the scale loads are shared (a store could alias them) */
        v[0] = mcu_conv2d_s8_dw_pack(rq, plain, clamp, ch, rq->scale + ch * step, step, lims, acc[0], acc[1], acc[2],
                                     acc[3]);
        v[1] = mcu_conv2d_s8_dw_pack(rq, plain, clamp, ch, rq->scale + ch * step, step, lims, acc[4], acc[5], acc[6],
                                     acc[7]);
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
static MCU_INLINE void mcu_conv2d_s8_dw_one(const mcu_conv2d_s8_params *p, const mcu_requant *rq,
                                                      int32_t plain, const int8_t *const *tab, int32_t taps,
                                                      int8_t *y0)
{
    const int32_t c = p->g.c_in;
    int32_t ch = 0, t;
#if defined(__ARM_FEATURE_DSP)
    const int32_t step = rq->per_channel ? 1 : 0;
    uint32_t lims[2];
    const int32_t clamp = mcu_conv2d_s8_dw_limits(rq, lims);
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

#endif
