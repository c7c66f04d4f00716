#include "lut8.h"

void mcu_lut8(const mcu_lut8_params *p, const int8_t *x, int8_t *y)
{
    /* the count and table in registers: y may alias *p as far as the compiler knows, which reloads them per store */
    const int8_t *const table = p->table;
    const int32_t count = p->count;
    int32_t i;
    for (i = 0; i + 4 <= count; i += 4) { /* four codes looked up before any is written: in place stays exact */
        const int8_t v0 = table[(uint8_t)x[i]], v1 = table[(uint8_t)x[i + 1]], v2 = table[(uint8_t)x[i + 2]],
                     v3 = table[(uint8_t)x[i + 3]];
        y[i] = v0;
        y[i + 1] = v1;
        y[i + 2] = v2;
        y[i + 3] = v3;
    }
    for (; i < count; ++i) {
        y[i] = table[(uint8_t)x[i]];
    }
}
