#include "add_s8.h"
#include <math.h>

/* x * mult / 2^(31 - shift), rounded half up once (shift <= 0: a multiplier below 1; |x| < 2^29, so the product
 * fits in 64 bits) */
static int32_t add_rescale(int32_t x, int32_t mult, int32_t shift)
{
    const int32_t total = 31 - shift;
    return (int32_t)(((int64_t)x * mult + ((int64_t)1 << (total - 1))) >> total);
}

static int32_t add_one(const mcu_add_s8_params *p, int32_t a, int32_t b)
{
    float v;
    if (p->mode == MCU_ADD_S8_FIXED) {
        /* TFLite int8 ADD as LiteRT's builtin kernel computes it: each operand shifted left by 20 and rescaled with
         * one rounding, the sum rescaled by MultiplyByQuantizedMultiplier */
        const int32_t sa = add_rescale((a - p->a_zp) * (1 << p->left_shift), p->a_mult, p->a_shift);
        const int32_t sb = add_rescale((b - p->b_zp) * (1 << p->left_shift), p->b_mult, p->b_shift);
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
