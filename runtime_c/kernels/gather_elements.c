#include "gather_elements.h"

void mcu_gather_elements(const mcu_gather_elements_params *p, const void *x, const void *idx, void *y)
{
    const uint8_t *in = (const uint8_t *)x;
    uint8_t *out = (uint8_t *)y;
    const size_t es = (size_t)p->elem_bytes;
    int32_t pos[MCU_MAX_RANK] = {0};
    int32_t base = 0, i, d;
    for (i = 0; i < p->count; ++i) {
        const int32_t j = mcu_index_wrap(mcu_index_load(idx, p->idx_dtype, i), p->axis_len);
        if (j < 0) {
            memset(out, 0, es);
        } else {
            memcpy(out, in + (size_t)(base + j * p->axis_stride) * es, es);
        }
        out += es;
        for (d = p->rank - 1; d >= 0; --d) {
            base += p->strides[d];
            if (++pos[d] < p->dims[d]) {
                break;
            }
            base -= p->strides[d] * p->dims[d];
            pos[d] = 0;
        }
    }
}
