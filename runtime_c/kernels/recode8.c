#include "recode8.h"

void mcu_recode8(const mcu_recode8_params *p, const void *x, void *y)
{
    const uint8_t *in = (const uint8_t *)x;
    uint8_t *out = (uint8_t *)y;
    int32_t i;
    for (i = 0; i < p->count; ++i) {
        out[i] = (uint8_t)(in[i] ^ 0x80u);
    }
}
