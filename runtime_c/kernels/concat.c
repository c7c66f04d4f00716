#include "concat.h"

void mcu_concat(const mcu_concat_params *p, const void *x0, const void *x1, const void *x2, const void *x3,
                const void *x4, const void *x5, const void *x6, const void *x7, void *y)
{
    const uint8_t *const xs[MCU_CONCAT_MAX_INPUTS] = {
        (const uint8_t *)x0, (const uint8_t *)x1, (const uint8_t *)x2, (const uint8_t *)x3,
        (const uint8_t *)x4, (const uint8_t *)x5, (const uint8_t *)x6, (const uint8_t *)x7,
    };
    uint8_t *out = (uint8_t *)y;
    int32_t o, i;
    for (o = 0; o < p->outer; ++o) {
        for (i = 0; i < p->n_inputs; ++i) {
            memcpy(out, xs[i] + (size_t)o * p->in_bytes[i], (size_t)p->in_bytes[i]);
            out += p->in_bytes[i];
        }
    }
}
