#include "mul_s8.h"

/* MLAS QLinearMul (SSE2): float(product) * ratio, then + zero point (two roundings, no FMA), converted with round
 * half to even; a sum at or beyond 2^31 converts to INT32_MIN there, which saturates to the lowest code. */
static int32_t mul_one(const mcu_mul_s8_params *p, int32_t a, int32_t b)
{
    const float lo = (float)(p->qmin + p->y_off), hi = (float)(p->qmax + p->y_off);
    float v;
    if (p->fixed) {
        return mcu_sat(mcu_mbqm((a - p->a_zp) * (b - p->b_zp), p->mult, p->shift) + p->y_zp, p->qmin, p->qmax);
    }
    v = (float)((a - p->a_zp) * (b - p->b_zp)) * p->ratio;
    v = v + (float)(p->y_zp + p->y_off);
    if (!(v < 2147483648.0f) || v < -2147483648.0f) {
        return p->qmin;
    }
    return mcu_round_even(mcu_clampf(v, lo, hi)) - p->y_off;
}

void mcu_mul_s8(const mcu_mul_s8_params *p, const int8_t *a, const int8_t *b, int8_t *y)
{
    int32_t idx[MCU_MAX_RANK] = {0};
    int32_t ia = 0, ib = 0, total = 1, i;
    for (i = 0; i < p->bc.rank; ++i) {
        total *= p->bc.dims[i];
    }
    for (i = 0; i < total; ++i) {
        y[i] = (int8_t)mul_one(p, a[ia], b[ib]);
        mcu_bcast_next(&p->bc, idx, &ia, &ib);
    }
}
