#include "max_unpool.h"

void mcu_max_unpool(const mcu_max_unpool_params *p, const void *x, const int64_t *idx, void *y)
{
    const size_t es = (size_t)p->elem_size;
    int64_t total = 1;
    int32_t i, a;
    for (a = 0; a < p->rank; ++a) {
        total *= p->dims[a];
    }
    memset(y, 0, (size_t)p->out_count * es);
    for (i = 0; i < p->count; ++i) {
        int64_t j = idx[i];
        size_t off = 0;
        if (j < 0 || j >= total) {
            continue;
        }
        for (a = p->rank - 1; a >= 0; --a) {
            off += (size_t)(j % p->dims[a]) * (size_t)p->out_strides[a];
            j /= p->dims[a];
        }
        memcpy((uint8_t *)y + off * es, (const uint8_t *)x + (size_t)i * es, es);
    }
}
