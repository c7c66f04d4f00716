#include "prelu_f32.h"

void mcu_prelu_f32(const mcu_prelu_f32_params *p, const float *x, const float *slope, float *y)
{
    int32_t idx[MCU_MAX_RANK] = {0};
    int32_t i, ix = 0, is = 0;
    for (i = 0; i < p->count; ++i) {
        const float v = x[ix];
        y[i] = v < 0.0f ? slope[is] * v : v;
        mcu_bcast_next(&p->bc, idx, &ix, &is);
    }
}
