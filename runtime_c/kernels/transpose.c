#include "transpose.h"

void mcu_transpose(const mcu_transpose_params *p, const void *x, void *y)
{
    const uint8_t *in = (const uint8_t *)x;
    uint8_t *out = (uint8_t *)y;
    const size_t es = (size_t)p->elem_bytes;
    int32_t idx[MCU_MAX_RANK] = {0};
    int32_t ia = 0, unused = 0, i;
    for (i = 0; i < p->count; ++i) {
        memcpy(out + (size_t)i * es, in + (size_t)ia * es, es);
        mcu_bcast_next(&p->walk, idx, &ia, &unused);
    }
}
