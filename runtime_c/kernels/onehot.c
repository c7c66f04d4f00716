#include "onehot.h"

void mcu_onehot(const mcu_onehot_params *p, const void *idx, const void *values, void *y)
{
    const uint8_t *off = (const uint8_t *)values;
    const size_t es = (size_t)p->elem_bytes;
    const uint8_t *on = off + es;
    uint8_t *out = (uint8_t *)y;
    const int32_t count = p->outer * p->depth * p->inner;
    int32_t n, o, i;
    for (n = 0; n < count; ++n) {
        memcpy(out + (size_t)n * es, off, es);
    }
    for (o = 0; o < p->outer; ++o) {
        for (i = 0; i < p->inner; ++i) {
            const int32_t d = mcu_index_wrap(mcu_index_load(idx, p->idx_dtype, o * p->inner + i), p->depth);
            if (d >= 0) {
                memcpy(out + ((size_t)(o * p->depth + d) * (size_t)p->inner + (size_t)i) * es, on, es);
            }
        }
    }
}
