#ifndef MCU_CONV2D_S8_GEMM_H
#define MCU_CONV2D_S8_GEMM_H
#include "conv2d_s8_dot.h"

/* The GEMM block of the GEMM paths: requantizing stores, the block loops (DSP assembly with an FPU, ARMv6-M
 * naked functions, portable C) and their dispatch. */

/* How the GEMM paths requantize, decided once per call: MCU_CONV2D_S8_RQ_ANY (by a call: fixed mode, div, scales
 * that are not finite), _PLAIN (mcu_requant_plain_scaled inline), _S8 (plain over the full int8 range: one SSAT). */
#define MCU_CONV2D_S8_RQ_ANY 0
#define MCU_CONV2D_S8_RQ_PLAIN 1
#define MCU_CONV2D_S8_RQ_S8 2

/** The requantization mode (MCU_CONV2D_S8_RQ_*) of p's rq. */
MCU_CONV2D_S8_SHARED
static int32_t mcu_conv2d_s8_rq_mode(const mcu_conv2d_s8_params *p)
{
#if defined(__arm__) && !defined(__ARM_FP) /* soft float: not worth inlining at every output (fixed is the default) */
    (void)p;
    return MCU_CONV2D_S8_RQ_ANY;
#else
    if (!p->rq_plain) {
        return MCU_CONV2D_S8_RQ_ANY;
    }
    return p->rq.qmin == -128 && p->rq.qmax == 127 ? MCU_CONV2D_S8_RQ_S8 : MCU_CONV2D_S8_RQ_PLAIN;
#endif
}

#if defined(__arm__) && !defined(__ARM_FP)
#if defined(__GNUC__) && defined(__thumb__) && !defined(__thumb2__)
#include "conv2d_s8_gemm_v6m.h"

/* Channels of the requantization table (16 bytes each, on the caller's stack: at 128, the pointwise and im2col
 * call chains stay below the depthwise path's stack). */
#define MCU_CONV2D_S8_RQT_CHANNELS 128

/** The requantization table of mcu_conv2d_s8_gemm_t_v6m in t (4 words per channel, channels in block order: oc,
 * then oc + 1 or oc again for a lone last one), or NULL where the fused GEMM does not run (weight zero points, not
 * fixed mode with double rounding, zp outside [qmin, qmax]), c_out is above MCU_CONV2D_S8_RQT_CHANNELS, or fewer
 * than `pairs` 2 pixel pairs would share it. */
MCU_CONV2D_S8_SHARED
static const int32_t *mcu_conv2d_s8_rq_table(const mcu_conv2d_s8_params *p, int32_t pairs, int32_t *t)
{
    const mcu_requant *rq = &p->rq;
    const int32_t c_out = p->g.c_out;
    int32_t oc, i;
    if (p->w_zp != NULL || rq->mult == NULL || rq->single_round || rq->qmin > rq->zp || rq->zp > rq->qmax ||
        c_out > MCU_CONV2D_S8_RQT_CHANNELS || pairs < 2) {
        return NULL;
    }
    for (oc = 0; oc < c_out; oc += 2) {
        for (i = 0; i < 2; ++i) {
            const int32_t ch = oc + i < c_out ? oc + i : oc, c = rq->per_channel ? ch : 0;
            const int32_t m = rq->mult[c], shift = rq->shift[c], e = shift > 0 ? shift : 0;
            int32_t *r = t + 4 * (oc + i);
            mcu_split16(m, &r[0], &r[1]);
            r[2] = e | (shift < 0 ? -shift : 0) << 8 | ch << 16;
            r[3] = (int32_t)((1u << e) >> 1);
        }
    }
    return t;
}
#define MCU_CONV2D_S8_GEMM_V6M 1
#else
/** The fixed-mode (double rounding) case of mcu_conv2d_s8_store2x2, out of line: with the GEMM's live values
 * around it, GCC spills most of the requantization's. */
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_store2x2_fixed(const mcu_requant *rq, const int32_t acc[4], int32_t oc,
                                                               int32_t oc1, int8_t *y0, int8_t *y1)
{
    int32_t v00, v01, v10, v11;
    mcu_requant_fixed_pair(rq, oc, acc[0], acc[1], &v00, &v01);
    mcu_requant_fixed_pair(rq, oc1, acc[2], acc[3], &v10, &v11);
    y0[oc] = (int8_t)v00;
    y1[oc] = (int8_t)v01;
    y0[oc1] = (int8_t)v10;
    y1[oc1] = (int8_t)v11;
}
#endif
#endif

/* The 2x2 block's four accumulators (acc[0], acc[1]: channel oc of pixels 0, 1; acc[2], acc[3]: channel oc1)
 * requantized in mode `mode` and stored to y0, y1 (the pixels' outputs): every value is computed before the first
 * store, so the scales are read once per channel (an int8 store may alias them). */
static MCU_INLINE void mcu_conv2d_s8_store2x2(const mcu_requant *rq, int32_t mode, const int32_t acc[4],
                                                        int32_t oc, int32_t oc1, int8_t *y0, int8_t *y1)
{
    int32_t v00, v01, v10, v11;
#if defined(__arm__) && !defined(__ARM_FP)
    if (rq->mult != NULL && !rq->single_round && rq->qmin <= rq->zp && rq->zp <= rq->qmax) {
        mcu_conv2d_s8_store2x2_fixed(rq, acc, oc, oc1, y0, y1);
        return;
    }
#endif
    if (mode == MCU_CONV2D_S8_RQ_ANY) {
        v00 = mcu_conv2d_s8_requant_any(rq, acc[0], oc);
        v01 = mcu_conv2d_s8_requant_any(rq, acc[1], oc);
        v10 = mcu_conv2d_s8_requant_any(rq, acc[2], oc1);
        v11 = mcu_conv2d_s8_requant_any(rq, acc[3], oc1);
    } else {
        const float s0 = rq->scale[rq->per_channel ? oc : 0], s1 = rq->scale[rq->per_channel ? oc1 : 0];
        if (mode == MCU_CONV2D_S8_RQ_S8) {
            v00 = mcu_requant_plain_s8(rq, acc[0], s0);
            v01 = mcu_requant_plain_s8(rq, acc[1], s0);
            v10 = mcu_requant_plain_s8(rq, acc[2], s1);
            v11 = mcu_requant_plain_s8(rq, acc[3], s1);
        } else {
            v00 = mcu_requant_plain_scaled(rq, acc[0], s0);
            v01 = mcu_requant_plain_scaled(rq, acc[1], s0);
            v10 = mcu_requant_plain_scaled(rq, acc[2], s1);
            v11 = mcu_requant_plain_scaled(rq, acc[3], s1);
        }
    }
    y0[oc] = (int8_t)v00;
    y1[oc] = (int8_t)v01;
    y0[oc1] = (int8_t)v10;
    y1[oc1] = (int8_t)v11;
}

/* Columns c0, c1 of two pixels against every weight row; y0, y1: the two pixels' outputs (c_out channels each). A
 * column is `rows` runs of `seg` taps, run r at r * rs (im2col and pointwise: one run; direct: one per kernel row
 * of a window inside the input), against weight rows of rows * seg taps. A lone last output channel runs as its
 * own pair and drops the duplicate; so does a lone pixel (c0 == c1, y0 == y1). */
static MCU_INLINE void mcu_conv2d_s8_gemm_body(const mcu_conv2d_s8_params *p, int32_t mode,
                                                         const int8_t *c0, const int8_t *c1, int32_t rows,
                                                         int32_t seg, size_t rs, int32_t k16, int32_t first,
                                                         int8_t *y0, int8_t *y1)
{
    const mcu_requant rq = p->rq; /* a local copy: the int8 stores below could alias p, which stops hoisting */
    const int32_t c_out = p->g.c_out, k = rows * seg;
    const int32_t *kbias = p->kbias, *w_zp = p->w_zp;
    const int8_t *w = p->w + (size_t)first * k;
    int32_t s0 = 0, s1 = 0, oc, r, i;
    if (w_zp) {
        for (r = 0; r < rows; ++r) {
            for (i = 0; i < seg; ++i) {
                s0 += c0[r * rs + i];
                s1 += c1[r * rs + i];
            }
        }
    }
    for (oc = first; oc < c_out; oc += 2, w += 2 * (size_t)k) {
        const int32_t oc1 = oc + 1 < c_out ? oc + 1 : oc;
        int32_t acc[4];
        acc[0] = acc[1] = kbias[oc];
        acc[2] = acc[3] = kbias[oc1];
        if (w_zp) {
            acc[0] -= w_zp[oc] * s0;
            acc[1] -= w_zp[oc] * s1;
            acc[2] -= w_zp[oc1] * s0;
            acc[3] -= w_zp[oc1] * s1;
        }
#if MCU_CONV2D_S8_DSP_ASM
        if (k16 && rows > 1) {
            mcu_conv2d_s8_dot2x2_rows16(w, w + (size_t)(oc1 - oc) * k, c0, c1, seg, rows, rs, acc);
        } else
#endif
        {
            for (r = 0; r < rows; ++r) {
                mcu_conv2d_s8_dot2x2(w + (size_t)r * seg, w + (size_t)(oc1 - oc) * k + (size_t)r * seg,
                                     c0 + r * rs, c1 + r * rs, seg, k16, acc);
            }
        }
        mcu_conv2d_s8_store2x2(&rq, mode, acc, oc, oc1, y0, y1);
    }
}

#if MCU_CONV2D_S8_DSP_ASM && defined(__ARM_FP) && (__ARM_FP & 4)
#define MCU_CONV2D_S8_BLOCKS_ASM 1

/** The state of mcu_conv2d_s8_blocks_s8's loop, on the stack (every register is taken inside the loop). */
typedef struct {
    const int8_t *c0, *c1; /* the columns (loaded together) */
    const int8_t *end;     /* c0's end */
    const int8_t *end16;   /* c0's end of the 16-tap loop (c0 + k - k % 16) */
    const int32_t *kbias;  /* the next pair's folded biases */
    const float *scale;    /* per channel: the next pair's scales */
    int8_t *y0, *y1;       /* the next pair's outputs of pixels 0, 1 (loaded together) */
    const int8_t *y0_end;  /* y0 after the last pair */
    int32_t k, zp;
} mcu_conv2d_s8_blocks_state;

/* The block loop's start: the pair's folded biases, then the 16-tap loop. */
#define MCU_CONV2D_S8_BLOCKS_BIAS                                                                                     \
    "ldr %[we], %[skb]\n\t"                                                                                            \
    "ldrd %[a00], %[a10], [%[we]], #8\n\t"                                                                             \
    "str %[we], %[skb]\n\t"                                                                                            \
    "mov %[a01], %[a00]\n\t"                                                                                           \
    "mov %[a11], %[a10]\n\t"

/* Any two columns: four pointers; the next pair's rows start where w1 ended and k further. */
#define MCU_CONV2D_S8_BLOCKS_HEAD                                                                                     \
    "2:\n\t"                                                                                                           \
    "ldrd %[c0], %[c1], %[sc0]\n\t" MCU_CONV2D_S8_BLOCKS_BIAS "1:\n\t" MCU_CONV2D_S8_SIXTEEN                           \
    "ldr %[we], %[send]\n\t"                                                                                           \
    "cmp %[c0], %[we]\n\t"                                                                                             \
    "bne 1b\n\t"                                                                                                       \
    "ldr %[we], %[sk]\n\t"                                                                                             \
    "mov %[w0], %[w1]\n\t"                                                                                             \
    "add %[w1], %[w1], %[we]\n\t"

/* The second column k bytes after the first ([kc] = k, in place of c1 and w1): the next pair's rows start k after
 * where w0 ended. */
#define MCU_CONV2D_S8_BLOCKS_HEADK                                                                                    \
    "2:\n\t"                                                                                                           \
    "ldr %[c0], %[sc0]\n\t" MCU_CONV2D_S8_BLOCKS_BIAS "1:\n\t" MCU_CONV2D_S8_STEPK MCU_CONV2D_S8_STEPK                   \
        MCU_CONV2D_S8_STEPK MCU_CONV2D_S8_STEPK "ldr %[we], %[send]\n\t"                                                \
    "cmp %[c0], %[we]\n\t"                                                                                             \
    "bne 1b\n\t"                                                                                                       \
    "add %[w0], %[w0], %[kc]\n\t"

/* As MCU_CONV2D_S8_BLOCKS_HEADK for k % 16 != 0, k % 4 == 0: the 16-tap loop (when k >= 16), then 4-tap steps. */
#define MCU_CONV2D_S8_BLOCKS_HEADK4                                                                                   \
    "2:\n\t"                                                                                                           \
    "ldr %[c0], %[sc0]\n\t" MCU_CONV2D_S8_BLOCKS_BIAS "ldr %[we], %[send16]\n\t"                                          \
    "cmp %[c0], %[we]\n\t"                                                                                             \
    "beq 3f\n\t"                                                                                                       \
    "1:\n\t" MCU_CONV2D_S8_STEPK MCU_CONV2D_S8_STEPK MCU_CONV2D_S8_STEPK MCU_CONV2D_S8_STEPK                             \
    "ldr %[we], %[send16]\n\t"                                                                                         \
    "cmp %[c0], %[we]\n\t"                                                                                             \
    "bne 1b\n\t"                                                                                                       \
    "3:\n\t" MCU_CONV2D_S8_STEPK "ldr %[we], %[send]\n\t"                                                              \
    "cmp %[c0], %[we]\n\t"                                                                                             \
    "bne 3b\n\t"                                                                                                       \
    "add %[w0], %[w0], %[kc]\n\t"

/* The two channels' scales (per channel) in s12, s13. */
#define MCU_CONV2D_S8_BLOCKS_SCALES                                                                                   \
    "ldr %[we], %[ssc]\n\t"                                                                                            \
    "vldmia %[we]!, {s12-s13}\n\t"                                                                                     \
    "str %[we], %[ssc]\n\t"

/* The rest: requantize (two values a VMOV each way), store, next pair. */
#define MCU_CONV2D_S8_BLOCKS_TAIL                                                                                     \
    "vmov s14, s15, %[a00], %[a01]\n\t"                                                                                \
    "vcvt.f32.s32 s14, s14\n\t"                                                                                        \
    "vcvt.f32.s32 s15, s15\n\t"                                                                                        \
    "vmul.f32 s14, s14, s12\n\t"                                                                                       \
    "vmul.f32 s15, s15, s12\n\t"                                                                                       \
    "vcvtr.s32.f32 s14, s14\n\t"                                                                                       \
    "vcvtr.s32.f32 s15, s15\n\t"                                                                                       \
    "vmov %[a00], %[a01], s14, s15\n\t"                                                                                \
    "vmov s14, s15, %[a10], %[a11]\n\t"                                                                                \
    "vcvt.f32.s32 s14, s14\n\t"                                                                                        \
    "vcvt.f32.s32 s15, s15\n\t"                                                                                        \
    "vmul.f32 s14, s14, s13\n\t"                                                                                       \
    "vmul.f32 s15, s15, s13\n\t"                                                                                       \
    "vcvtr.s32.f32 s14, s14\n\t"                                                                                       \
    "vcvtr.s32.f32 s15, s15\n\t"                                                                                       \
    "vmov %[a10], %[a11], s14, s15\n\t"                                                                                \
    "ldr %[wv], %[szp]\n\t"                                                                                            \
    "qadd %[a00], %[a00], %[wv]\n\t"                                                                                   \
    "qadd %[a01], %[a01], %[wv]\n\t"                                                                                   \
    "qadd %[a10], %[a10], %[wv]\n\t"                                                                                   \
    "qadd %[a11], %[a11], %[wv]\n\t"                                                                                   \
    "ssat %[a00], #8, %[a00]\n\t"                                                                                      \
    "ssat %[a01], #8, %[a01]\n\t"                                                                                      \
    "ssat %[a10], #8, %[a10]\n\t"                                                                                      \
    "ssat %[a11], #8, %[a11]\n\t"                                                                                      \
    "ldrd %[we], %[wv], %[sy0]\n\t"                                                                                    \
    "strb %[a00], [%[we]], #2\n\t"                                                                                     \
    "strb %[a10], [%[we], #-1]\n\t"                                                                                    \
    "strb %[a01], [%[wv]], #2\n\t"                                                                                     \
    "strb %[a11], [%[wv], #-1]\n\t"                                                                                    \
    "strd %[we], %[wv], %[sy0]\n\t"                                                                                    \
    "ldr %[wv], %[syend]\n\t"                                                                                          \
    "cmp %[we], %[wv]\n\t"                                                                                             \
    "bne 2b\n\t"

/* Operands of the block loop but the four pointers (at most 30 in all). */
#define MCU_CONV2D_S8_BLOCKS_OPERANDS                                                                                 \
    [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [x0e] "=&r"(x0e), [x0o] "=&r"(x0o),        \
        [x1e] "=&r"(x1e), [x1o] "=&r"(x1o), [wv] "=&r"(wv), [we] "=&r"(we), [skb] "+m"(st.kbias),                      \
        [ssc] "+m"(st.scale), [sy0] "+m"(st.y0)                                                                        \
    : [sc0] "m"(st.c0), [send] "m"(st.end), [send16] "m"(st.end16), [sk] "m"(st.k), [szp] "m"(st.zp),                 \
      [syend] "m"(st.y0_end)                                                                                           \
    : "cc", "memory", "s12", "s13", "s14", "s15"

/* Every pair of output channels 0 .. 2 * pairs - 1 of two columns of k taps (mcu_conv2d_s8_blocks_fit: k % 16 == 0,
 * or k % 4 == 0 with the second column k bytes after the first), requantized in mode
 * MCU_CONV2D_S8_RQ_S8 (float scale, full int8 range), w_zp NULL: one assembly loop over the pairs around the 16-tap
 * loop (the compiler's code around the block reloaded more from the stack), the requantization that of
 * mcu_requant_plain_s8: VCVT to float, VMUL by the scale, VCVTR (round half to even, saturating), QADD zp, SSAT #8. */
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_blocks_s8(const mcu_conv2d_s8_params *p, const int8_t *c0,
                                                          const int8_t *c1, int32_t k, int32_t pairs, int8_t *y0,
                                                          int8_t *y1)
{
    mcu_conv2d_s8_blocks_state st;
    int32_t a00, a01, a10, a11, x0e, x0o, x1e, x1o, wv, we;
    const int8_t *w0 = p->w, *w1 = p->w + k;
    st.c0 = c0;
    st.c1 = c1;
    st.end = c0 + k;
    st.end16 = c0 + (k & ~15);
    st.kbias = p->kbias;
    st.scale = p->rq.scale;
    st.y0 = y0;
    st.y1 = y1;
    st.y0_end = y0 + 2 * pairs;
    st.k = k;
    st.zp = p->rq.zp;
    if (c1 == c0 + k) { /* im2col's columns, a pointwise pair of adjacent pixels */
        const int8_t *wt;
        int32_t kc = k;
        if (k % 16 == 0) {
            __asm__ volatile(MCU_CONV2D_S8_BLOCKS_HEADK MCU_CONV2D_S8_BLOCKS_SCALES MCU_CONV2D_S8_BLOCKS_TAIL
                             : [c0] "=&r"(c0), [kc] "+r"(kc), [w0] "+r"(w0), [wt] "=&r"(wt),
                               MCU_CONV2D_S8_BLOCKS_OPERANDS);
        } else {
            __asm__ volatile(MCU_CONV2D_S8_BLOCKS_HEADK4 MCU_CONV2D_S8_BLOCKS_SCALES MCU_CONV2D_S8_BLOCKS_TAIL
                             : [c0] "=&r"(c0), [kc] "+r"(kc), [w0] "+r"(w0), [wt] "=&r"(wt),
                               MCU_CONV2D_S8_BLOCKS_OPERANDS);
        }
        return;
    }
    __asm__ volatile(MCU_CONV2D_S8_BLOCKS_HEAD MCU_CONV2D_S8_BLOCKS_SCALES MCU_CONV2D_S8_BLOCKS_TAIL
                     : [c0] "=&r"(c0), [c1] "=&r"(c1), [w0] "+r"(w0), [w1] "+r"(w1), MCU_CONV2D_S8_BLOCKS_OPERANDS);
}
#else
#define MCU_CONV2D_S8_BLOCKS_ASM 0
#endif

/* mcu_conv2d_s8_gemm_body compiled for one run of k taps per column (im2col, local, pointwise) and over `rows` runs
 * (the direct path's windows inside the input), each for seg % 16 == 0 (the assembly loop only) and any seg: the
 * loop over runs and the steps after the loop cost registers around the block. */
#if MCU_CONV2D_S8_DSP_ASM
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_gemm_k16(const mcu_conv2d_s8_params *p, int32_t mode,
                                                          const int8_t *c0, const int8_t *c1, int32_t k, int32_t first,
                                                          int8_t *y0, int8_t *y1)
{
    mcu_conv2d_s8_gemm_body(p, mode, c0, c1, 1, k, 0, 1, first, y0, y1);
}

#endif

MCU_CONV2D_S8_SHARED
static void mcu_conv2d_s8_gemm_any(const mcu_conv2d_s8_params *p, int32_t mode, const int8_t *c0, const int8_t *c1,
                                   int32_t k, int32_t first, int8_t *y0, int8_t *y1)
{
    if (mode == MCU_CONV2D_S8_RQ_S8) { /* the first convs' mode compiled on its own: no mode tests per block */
        mcu_conv2d_s8_gemm_body(p, MCU_CONV2D_S8_RQ_S8, c0, c1, 1, k, 0, 0, first, y0, y1);
        return;
    }
    mcu_conv2d_s8_gemm_body(p, mode, c0, c1, 1, k, 0, 0, first, y0, y1);
}

#if MCU_CONV2D_S8_DSP_ASM
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_gemm_rows_k16(const mcu_conv2d_s8_params *p, int32_t mode, const int8_t *c0,
                                        const int8_t *c1, int32_t rows, int32_t seg, size_t rs, int8_t *y0, int8_t *y1)
{
    mcu_conv2d_s8_gemm_body(p, mode, c0, c1, rows, seg, rs, 1, 0, y0, y1);
}

#endif

static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_gemm_rows_any(const mcu_conv2d_s8_params *p, int32_t mode, const int8_t *c0,
                                        const int8_t *c1, int32_t rows, int32_t seg, size_t rs, int8_t *y0, int8_t *y1)
{
    mcu_conv2d_s8_gemm_body(p, mode, c0, c1, rows, seg, rs, 0, 0, y0, y1);
}

/* Declares rqt, the GEMM's requantization table for the call (pairs: its pixel pairs; store: the storage
 * mcu_conv2d_s8_gemm_paths provides, NULL off ARMv6-M): mcu_conv2d_s8_rq_table's result, elsewhere NULL. */
#if defined(MCU_CONV2D_S8_GEMM_V6M)
#define MCU_CONV2D_S8_RQT(p, pairs, store, rqt) const int32_t *rqt = mcu_conv2d_s8_rq_table(p, pairs, store)
#else
#define MCU_CONV2D_S8_RQT(p, pairs, store, rqt)                                                                    \
    const int32_t *rqt = NULL;                                                                                     \
    (void)(store)
#endif

/** The GEMM over one run of k taps per column: on DSP cores with an FPU, the full-int8-range float mode with
 * per-channel scales and no w_zp through the block loop in assembly (mcu_conv2d_s8_blocks_s8) where k allows. */
MCU_CONV2D_S8_SHARED
static void mcu_conv2d_s8_gemm(const mcu_conv2d_s8_params *p, int32_t mode, const int8_t *c0, const int8_t *c1,
                               int32_t k, int8_t *y0, int8_t *y1, const int32_t *rqt)
{
    int32_t first = 0;
#if defined(MCU_CONV2D_S8_GEMM_V6M)
    const mcu_requant rq = p->rq; /* the assembly reads it; a copy, as for the C block */
    if (p->w_zp == NULL && rq.mult != NULL && !rq.single_round && rq.qmin <= rq.zp && rq.zp <= rq.qmax) {
        const mcu_conv2d_s8_gemm_v6m_args a = {c0, c1, k, p->w, p->kbias, p->g.c_out, y0, y1, &rq, rqt};
        const int32_t lone = c0 == c1 && y0 == y1;
        if (rqt != NULL) {
            (lone ? mcu_conv2d_s8_gemm1_t_v6m : mcu_conv2d_s8_gemm_t_v6m)(&a);
        } else {
            (lone ? mcu_conv2d_s8_gemm1_v6m : mcu_conv2d_s8_gemm_v6m)(&a);
        }
        return;
    }
#else
    (void)rqt;
#endif
#if MCU_CONV2D_S8_BLOCKS_ASM
    if (mode == MCU_CONV2D_S8_RQ_S8 && p->w_zp == NULL && p->rq.per_channel &&
        (k % 16 == 0 || (k % 4 == 0 && c1 == c0 + k))) {
        first = p->g.c_out & ~1;
        if (first > 0) {
            mcu_conv2d_s8_blocks_s8(p, c0, c1, k, first / 2, y0, y1);
        }
        if (first == p->g.c_out) {
            return;
        }
    }
#endif
#if MCU_CONV2D_S8_DSP_ASM
    if (k % 16 == 0) {
        mcu_conv2d_s8_gemm_k16(p, mode, c0, c1, k, first, y0, y1); /* first: the lone last channel left */
        return;
    }
#endif
    mcu_conv2d_s8_gemm_any(p, mode, c0, c1, k, first, y0, y1);
}

/** The GEMM over `rows` runs of seg taps per column, run r at r * rs. */
MCU_CONV2D_S8_SHARED
static void mcu_conv2d_s8_gemm_rows(const mcu_conv2d_s8_params *p, int32_t mode, const int8_t *c0,
                                    const int8_t *c1, int32_t rows, int32_t seg, size_t rs, int8_t *y0, int8_t *y1)
{
#if MCU_CONV2D_S8_DSP_ASM
    if (seg % 16 == 0) {
        mcu_conv2d_s8_gemm_rows_k16(p, mode, c0, c1, rows, seg, rs, y0, y1);
        return;
    }
#endif
    mcu_conv2d_s8_gemm_rows_any(p, mode, c0, c1, rows, seg, rs, y0, y1);
}

/* Declares store, the storage of mcu_conv2d_s8_rq_table on the path function's frame (ARMv6-M; elsewhere NULL). */
#if defined(MCU_CONV2D_S8_GEMM_V6M)
#define MCU_CONV2D_S8_RQT_STORE(store) int32_t store[4 * MCU_CONV2D_S8_RQT_CHANNELS]
#else
#define MCU_CONV2D_S8_RQT_STORE(store) int32_t *const store = NULL
#endif

#endif
