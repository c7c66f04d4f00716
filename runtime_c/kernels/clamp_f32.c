#include "clamp_f32.h"

void mcu_clamp_f32(const mcu_clamp_f32_params *p, const float *x, float *y)
{
    int32_t i;
    for (i = 0; i < p->count; ++i) {
        float v = x[i];
        if (v < 0.0f && p->neg_slope != 1.0f) {
            v *= p->neg_slope;
        }
        y[i] = v < p->lo ? p->lo : (v > p->hi ? p->hi : v);
    }
}
