#include "fc_s8.h"
#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif

#if defined(__ARM_FEATURE_DSP)
/** Four int8 from memory at any alignment (one LDR on the cores with the DSP extension). */
static inline uint32_t fc_s8_load4(const int8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/** Bytes 1 and 3 of v sign-extended to two int16 lanes: one SXTB16 with its operand rotated (arm_acle.h has no
 * rotation, and the compiler does not fold a separate one). */
static inline int32_t fc_s8_sxtb16_ror8(uint32_t v)
{
    int32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
    return r;
}

/** One 4-feature step of a block: x's bytes 0, 2 and 1, 3 sign-extended in pairs once feed two SMLADs (two MACs
 * each) per output; w holds the 4 outputs' 4 weights. */
static inline void fc_s8_step4(uint32_t xv, const int8_t *w, int32_t *a0, int32_t *a1, int32_t *a2, int32_t *a3)
{
    const int32_t x02 = __sxtb16(xv), x13 = fc_s8_sxtb16_ror8(xv);
    uint32_t wv = fc_s8_load4(w);
    *a0 = __smlad(x13, fc_s8_sxtb16_ror8(wv), __smlad(x02, __sxtb16(wv), *a0));
    wv = fc_s8_load4(w + 4);
    *a1 = __smlad(x13, fc_s8_sxtb16_ror8(wv), __smlad(x02, __sxtb16(wv), *a1));
    wv = fc_s8_load4(w + 8);
    *a2 = __smlad(x13, fc_s8_sxtb16_ror8(wv), __smlad(x02, __sxtb16(wv), *a2));
    wv = fc_s8_load4(w + 12);
    *a3 = __smlad(x13, fc_s8_sxtb16_ror8(wv), __smlad(x02, __sxtb16(wv), *a3));
}

/* The k4 4-feature steps of one block of 4 outputs for one row. Pairs of steps run in one assembly loop, because
 * the compiler's schedule spills its operands: it needs 14 registers (4 accumulators, x's two lane pairs, 4 weight
 * words, a temporary, 2 pointers and the end); the 5 loads of a step issue back to back (the core pipelines
 * them) and the weight pointer advances with the first load. An odd last step runs in C. */
static inline void fc_s8_steps(const int8_t *x, const int8_t *w, int32_t k4, int32_t *acc)
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    const int8_t *const x_end = x + 8 * (k4 / 2);
    if (x != x_end) {
        uint32_t t, x02, x13, w0, w1, w2, w3;
        __asm__ volatile(
            "1:\n\t"
            "ldr %[t], [%[x]], #4\n\t"
            "ldr %[w0], [%[w]], #32\n\t"
            "ldr %[w1], [%[w], #-28]\n\t"
            "ldr %[w2], [%[w], #-24]\n\t"
            "ldr %[w3], [%[w], #-20]\n\t"
            "sxtb16 %[x02], %[t]\n\t"
            "sxtb16 %[x13], %[t], ror #8\n\t"
            "sxtb16 %[t], %[w0]\n\t"
            "smlad %[a0], %[x02], %[t], %[a0]\n\t"
            "sxtb16 %[w0], %[w0], ror #8\n\t"
            "smlad %[a0], %[x13], %[w0], %[a0]\n\t"
            "sxtb16 %[t], %[w1]\n\t"
            "smlad %[a1], %[x02], %[t], %[a1]\n\t"
            "sxtb16 %[w1], %[w1], ror #8\n\t"
            "smlad %[a1], %[x13], %[w1], %[a1]\n\t"
            "sxtb16 %[t], %[w2]\n\t"
            "smlad %[a2], %[x02], %[t], %[a2]\n\t"
            "sxtb16 %[w2], %[w2], ror #8\n\t"
            "smlad %[a2], %[x13], %[w2], %[a2]\n\t"
            "sxtb16 %[t], %[w3]\n\t"
            "smlad %[a3], %[x02], %[t], %[a3]\n\t"
            "sxtb16 %[w3], %[w3], ror #8\n\t"
            "smlad %[a3], %[x13], %[w3], %[a3]\n\t"
            "ldr %[t], [%[x]], #4\n\t"
            "ldr %[w0], [%[w], #-16]\n\t"
            "ldr %[w1], [%[w], #-12]\n\t"
            "ldr %[w2], [%[w], #-8]\n\t"
            "ldr %[w3], [%[w], #-4]\n\t"
            "sxtb16 %[x02], %[t]\n\t"
            "sxtb16 %[x13], %[t], ror #8\n\t"
            "sxtb16 %[t], %[w0]\n\t"
            "smlad %[a0], %[x02], %[t], %[a0]\n\t"
            "sxtb16 %[w0], %[w0], ror #8\n\t"
            "smlad %[a0], %[x13], %[w0], %[a0]\n\t"
            "sxtb16 %[t], %[w1]\n\t"
            "smlad %[a1], %[x02], %[t], %[a1]\n\t"
            "sxtb16 %[w1], %[w1], ror #8\n\t"
            "smlad %[a1], %[x13], %[w1], %[a1]\n\t"
            "sxtb16 %[t], %[w2]\n\t"
            "smlad %[a2], %[x02], %[t], %[a2]\n\t"
            "sxtb16 %[w2], %[w2], ror #8\n\t"
            "smlad %[a2], %[x13], %[w2], %[a2]\n\t"
            "sxtb16 %[t], %[w3]\n\t"
            "smlad %[a3], %[x02], %[t], %[a3]\n\t"
            "sxtb16 %[w3], %[w3], ror #8\n\t"
            "smlad %[a3], %[x13], %[w3], %[a3]\n\t"
            "cmp %[x], %[x_end]\n\t"
            "bne 1b\n\t"
            : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w] "+r"(w), [t] "=&r"(t),
              [x02] "=&r"(x02), [x13] "=&r"(x13), [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3)
            : [x_end] "r"(x_end)
            : "cc", "memory");
    }
    if (k4 & 1) {
        fc_s8_step4(fc_s8_load4(x), w, &a0, &a1, &a2, &a3);
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/** Dot product of n int8 pairs, 4 at a time with SMLAD, then the tail. */
static int32_t fc_s8_dot(const int8_t *x, const int8_t *w, int32_t n, int32_t acc)
{
    int32_t k;
    for (k = 0; k + 4 <= n; k += 4) {
        const uint32_t xv = fc_s8_load4(x + k), wv = fc_s8_load4(w + k);
        acc = __smlad(__sxtb16(xv), __sxtb16(wv), acc);
        acc = __smlad(fc_s8_sxtb16_ror8(xv), fc_s8_sxtb16_ror8(wv), acc);
    }
    for (; k < n; ++k) {
        acc += (int32_t)x[k] * w[k];
    }
    return acc;
}
#else
/* Portable path (the host, and ARMv6-M where it is what the two-stage pipeline wants: each x loaded once feeds four
 * multiply-accumulates in registers). */
/** The k4 4-feature steps of one block of 4 outputs for one row. */
static inline void fc_s8_steps(const int8_t *x, const int8_t *w, int32_t k4, int32_t *acc)
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    int32_t k, i;
    for (k = 0; k < k4; ++k) {
        for (i = 0; i < 4; ++i) {
            const int32_t xv = x[i];
            a0 += xv * w[i];
            a1 += xv * w[4 + i];
            a2 += xv * w[8 + i];
            a3 += xv * w[12 + i];
        }
        x += 4;
        w += 16;
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/** Dot product of n int8 pairs. */
static int32_t fc_s8_dot(const int8_t *x, const int8_t *w, int32_t n, int32_t acc)
{
    int32_t k;
    for (k = 0; k < n; ++k) {
        acc += (int32_t)x[k] * w[k];
    }
    return acc;
}
#endif

/** Sum of a row's n inputs (for nonzero weight zero points). */
static int32_t fc_s8_sum(const int8_t *x, int32_t n)
{
    int32_t k, s = 0;
    for (k = 0; k < n; ++k) {
        s += x[k];
    }
    return s;
}

/* Every full block of 4 outputs of one chunk for one row: the feature steps, then the block's feature tails (its
 * weights follow the steps'); returns the weights after the blocks. Out of line, so the steps' registers are free. */
static __attribute__((noinline)) const int8_t *fc_s8_blocks(const int8_t *x, const int8_t *w, int32_t n_in,
                                                            int32_t n_blocks, int32_t *acc)
{
    const int32_t k4 = n_in / 4, tail = n_in % 4;
    const int8_t *const xt = x + 4 * k4;
    int32_t b, t;
    for (b = 0; b < n_blocks; ++b) {
        fc_s8_steps(x, w, k4, acc);
        w += 16 * k4;
        for (t = 0; t < tail; ++t) {
            const int32_t xv = xt[t];
            acc[0] += xv * w[t];
            acc[1] += xv * w[tail + t];
            acc[2] += xv * w[2 * tail + t];
            acc[3] += xv * w[3 * tail + t];
        }
        w += MCU_FC_S8_BLOCK * tail;
        acc += MCU_FC_S8_BLOCK;
    }
    return w;
}

/** A chunk's n accumulators (outputs o0 ..) requantized to y: a plain rq inline (one VCVTR, QADD and SSAT an output
 * over the full int8 range on DSP cores with an FPU), else by mcu_requant_row. */
static void fc_s8_requant(const mcu_fc_s8_params *p, const int32_t *acc, int32_t n, int32_t o0, int8_t *y)
{
    const mcu_requant *rq = &p->rq;
    const int32_t step = rq->per_channel ? 1 : 0;
    int32_t o;
    const float *scale;
    if (!p->rq_plain) { /* (fixed mode has no scales) */
        mcu_requant_row(rq, acc, n, o0, 1, y, 1);
        return;
    }
    scale = rq->scale + o0 * step;
    if (rq->qmin == -128 && rq->qmax == 127) {
        for (o = 0; o < n; ++o) {
            y[o] = (int8_t)mcu_requant_plain_s8(rq, acc[o], scale[o * step]);
        }
    } else {
        for (o = 0; o < n; ++o) {
            y[o] = (int8_t)mcu_requant_plain_scaled(rq, acc[o], scale[o * step]);
        }
    }
}

/* Accumulators of up to this many outputs are requantized together, so the per-call setup of the requantization
 * is paid once per chunk (128 B of stack); a multiple of MCU_FC_S8_BLOCK. */
#define FC_S8_CHUNK 32

void mcu_fc_s8(const mcu_fc_s8_params *p, const int8_t *x, int8_t *y)
{
    const int32_t n_in = p->in_features, n_out = p->out_features;
    const int32_t full = n_out - n_out % MCU_FC_S8_BLOCK;
    int32_t r, o0, o;
    int32_t acc[FC_S8_CHUNK];
    for (r = 0; r < p->rows; ++r) {
        const int8_t *xr = x + (size_t)r * n_in;
        int8_t *yr = y + (size_t)r * n_out;
        const int8_t *w = p->w;
        const int32_t xsum = p->w_zp != NULL ? fc_s8_sum(xr, n_in) : 0;
        for (o0 = 0; o0 < n_out; o0 += FC_S8_CHUNK) {
            const int32_t n = n_out - o0 < FC_S8_CHUNK ? n_out - o0 : FC_S8_CHUNK;
            const int32_t blocks_end = full - o0 < n ? full - o0 : n;
            for (o = 0; o < n; ++o) {
                acc[o] = p->bias[o0 + o];
            }
            if (p->w_zp != NULL) {
                for (o = 0; o < n; ++o) {
                    acc[o] -= p->w_zp[o0 + o] * xsum;
                }
            }
            w = fc_s8_blocks(xr, w, n_in, blocks_end / MCU_FC_S8_BLOCK, acc);
            for (o = blocks_end; o < n; ++o) {
                acc[o] = fc_s8_dot(xr, w, n_in, acc[o]);
                w += n_in;
            }
            fc_s8_requant(p, acc, n, o0, yr + o0);
        }
    }
}
