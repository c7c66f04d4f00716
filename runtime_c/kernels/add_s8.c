#include "add_s8.h"
#include <math.h>

/* (v << left) * mult / 2^(31 - shift), rounded half up once, for |v| <= 255, left == 20, 0 <= mult < 2^31 and
 * -31 <= shift <= 0 (TFLite's QuantizeMultiplier range), in 32-bit arithmetic (a 64-bit multiply is a library call
 * on Cortex-M0+). With s = 31 - left - shift, 11 <= s <= 42, it is floor((v * mult + 2^(s-1)) / 2^s); splitting
 * mult = mh * 2^15 + ml makes v * mult = A * 2^15 + B with |A| < 2^24, |B| < 2^23:
 * s <= 15: (A << (15 - s)) + floor((B + 2^(s-1)) / 2^s), since A * 2^15 is a multiple of 2^s;
 * s >= 16: floor((A + 2^(s-16) + floor(B / 2^15)) / 2^(s-15)) (nested floor divisions). */
static int32_t add_rescale(int32_t v, int32_t left, int32_t mult, int32_t shift)
{
    const int32_t s = 31 - left - shift;
    const int32_t a = v * (mult >> 15), b = v * (mult & 0x7fff);
    if (s <= 15) {
        return a * (1 << (15 - s)) + ((b + (1 << (s - 1))) >> s);
    }
    return (a + (1 << (s - 16)) + (b >> 15)) >> (s - 15);
}

static int32_t add_one(const mcu_add_s8_params *p, int32_t a, int32_t b)
{
    float v;
    if (p->mode == MCU_ADD_S8_FIXED) {
        /* TFLite int8 ADD as LiteRT's builtin kernel computes it: each operand shifted left by left_shift (20) and
         * rescaled with one rounding, the sum rescaled by MultiplyByQuantizedMultiplier */
        const int32_t sa = add_rescale(a - p->a_zp, p->left_shift, p->a_mult, p->a_shift);
        const int32_t sb = add_rescale(b - p->b_zp, p->left_shift, p->b_mult, p->b_shift);
        return mcu_sat(mcu_mbqm(sa + sb, p->y_mult, p->y_shift) + p->y_zp, p->qmin, p->qmax);
    }
    if (p->mode == MCU_ADD_S8_QLINEAR) {
        /* MLAS QLinearAdd: the zero points live in `fixed`; b's term first, then a's; values in the integer type
         * onnxruntime uses for each tensor, since the float roundings depend on it. */
        v = fmaf((float)(b + p->b_off), p->r_by, p->fixed);
        v = fmaf((float)(a + p->a_off), p->r_ay, v);
        v = mcu_clampf(v, (float)(p->qmin + p->y_off), (float)(p->qmax + p->y_off));
        return mcu_round_even(v) - p->y_off;
    }
    v = (float)(a - p->a_zp) * p->a_scale + (float)(b - p->b_zp) * p->b_scale;
    v = mcu_clampf(v / p->y_scale, (float)(p->qmin - p->y_zp), (float)(p->qmax - p->y_zp));
    return mcu_round_even(v) + p->y_zp;
}

void mcu_add_s8(const mcu_add_s8_params *p, const int8_t *a, const int8_t *b, int8_t *y)
{
    int32_t idx[MCU_MAX_RANK] = {0};
    int32_t ia = 0, ib = 0, total = 1, i;
    for (i = 0; i < p->bc.rank; ++i) {
        total *= p->bc.dims[i];
    }
    for (i = 0; i < total; ++i) {
        y[i] = (int8_t)add_one(p, a[ia], b[ib]);
        mcu_bcast_next(&p->bc, idx, &ia, &ib);
    }
}
