#include "tanh_f32.h"
#include "mcu_math.h"

void mcu_tanh_f32(const mcu_tanh_f32_params *p, const float *x, float *y)
{
    int32_t i;
    for (i = 0; i < p->count; ++i) {
        y[i] = mcu_tanhf(x[i]);
    }
}
