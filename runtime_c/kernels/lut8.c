#include "lut8.h"

void mcu_lut8(const mcu_lut8_params *p, const int8_t *x, int8_t *y)
{
    int32_t i;
    for (i = 0; i < p->count; ++i) {
        y[i] = p->table[(uint8_t)x[i]];
    }
}
