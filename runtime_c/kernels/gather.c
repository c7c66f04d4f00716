#include "gather.h"

void mcu_gather(const mcu_gather_params *p, const void *x, const void *idx, void *y)
{
    const uint8_t *in = (const uint8_t *)x;
    uint8_t *out = (uint8_t *)y;
    const size_t inner = (size_t)p->inner_bytes;
    int32_t o, i;
    for (o = 0; o < p->outer; ++o) {
        const uint8_t *plane = in + (size_t)o * (size_t)p->axis_len * inner;
        for (i = 0; i < p->n_idx; ++i) {
            const int32_t j = mcu_index_wrap(mcu_index_load(idx, p->idx_dtype, i), p->axis_len);
            if (j < 0) {
                memset(out, 0, inner);
            } else {
                memcpy(out, plane + (size_t)j * inner, inner);
            }
            out += inner;
        }
    }
}
