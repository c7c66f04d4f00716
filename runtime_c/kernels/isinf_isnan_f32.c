#include "isinf_isnan_f32.h"
#include <math.h>

void mcu_isinf_isnan_f32(const mcu_isinf_isnan_f32_params *p, const float *x, uint8_t *y)
{
    int32_t i;
    for (i = 0; i < p->count; ++i) {
        const float v = x[i];
        if (p->nan) {
            y[i] = (uint8_t)(v != v);
        } else {
            y[i] = (uint8_t)((p->pos && v == INFINITY) || (p->neg && v == -INFINITY));
        }
    }
}
