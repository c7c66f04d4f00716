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

/* One block of 4 outputs for one row, the 4-feature steps: x's bytes 0, 2 and 1, 3 are sign-extended in pairs once
 * and feed two SMLADs per output (two MACs each). */
static void fc_s8_block4(const int8_t *x, const int8_t *w, int32_t k4, int32_t *acc)
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    const int8_t *const x_end = x + 4 * k4;
    while (x != x_end) {
        const uint32_t xv = fc_s8_load4(x);
        const int32_t x02 = __sxtb16(xv), x13 = fc_s8_sxtb16_ror8(xv);
        uint32_t wv = fc_s8_load4(w);
        a0 = __smlad(x02, __sxtb16(wv), a0);
        a0 = __smlad(x13, fc_s8_sxtb16_ror8(wv), a0);
        wv = fc_s8_load4(w + 4);
        a1 = __smlad(x02, __sxtb16(wv), a1);
        a1 = __smlad(x13, fc_s8_sxtb16_ror8(wv), a1);
        wv = fc_s8_load4(w + 8);
        a2 = __smlad(x02, __sxtb16(wv), a2);
        a2 = __smlad(x13, fc_s8_sxtb16_ror8(wv), a2);
        wv = fc_s8_load4(w + 12);
        a3 = __smlad(x02, __sxtb16(wv), a3);
        a3 = __smlad(x13, fc_s8_sxtb16_ror8(wv), a3);
        x += 4;
        w += 16;
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
static void fc_s8_block4(const int8_t *x, const int8_t *w, int32_t k4, int32_t *acc)
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

/** The accumulator's start for output o: the folded bias, minus w_zp[o] times the row's input sum. */
static inline int32_t fc_s8_start(const mcu_fc_s8_params *p, int32_t o, int32_t xsum)
{
    return p->w_zp != NULL ? p->bias[o] - p->w_zp[o] * xsum : p->bias[o];
}

void mcu_fc_s8(const mcu_fc_s8_params *p, const int8_t *x, int8_t *y)
{
    const int32_t n_in = p->in_features, n_out = p->out_features;
    const int32_t k4 = n_in / 4, tail = n_in % 4;
    const int32_t full = n_out - n_out % MCU_FC_S8_BLOCK;
    int32_t r, o, j;
    for (r = 0; r < p->rows; ++r) {
        const int8_t *xr = x + (size_t)r * n_in;
        int8_t *yr = y + (size_t)r * n_out;
        const int8_t *w = p->w;
        const int32_t xsum = p->w_zp != NULL ? fc_s8_sum(xr, n_in) : 0;
        int32_t acc[MCU_FC_S8_BLOCK];
        for (o = 0; o < full; o += MCU_FC_S8_BLOCK) {
            for (j = 0; j < MCU_FC_S8_BLOCK; ++j) {
                acc[j] = fc_s8_start(p, o + j, xsum);
            }
            fc_s8_block4(xr, w, k4, acc);
            w += 16 * k4;
            for (j = 0; j < MCU_FC_S8_BLOCK; ++j) {
                acc[j] = fc_s8_dot(xr + 4 * k4, w + j * tail, tail, acc[j]);
            }
            w += MCU_FC_S8_BLOCK * tail;
            mcu_requant_row(&p->rq, acc, MCU_FC_S8_BLOCK, o, 1, yr + o, 1);
        }
        for (; o < n_out; ++o) {
            acc[0] = fc_s8_dot(xr, w, n_in, fc_s8_start(p, o, xsum));
            w += n_in;
            mcu_requant_row(&p->rq, acc, 1, o, 1, yr + o, 1);
        }
    }
}
