#include "add_s8.h"
#include <math.h>

static int32_t add_one(const mcu_add_s8_params *p, int32_t a, int32_t b)
{
    float v;
    if (p->mode == MCU_ADD_S8_FIXED) {
        /* TFLite reference_integer_ops::Add; the operands fit in 9 bits, so the left shift cannot overflow */
        const int32_t sa = mcu_mbqm((a - p->a_zp) * (1 << p->left_shift), p->a_mult, p->a_shift);
        const int32_t sb = mcu_mbqm((b - p->b_zp) * (1 << p->left_shift), p->b_mult, p->b_shift);
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
