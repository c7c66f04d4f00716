#include "gather_nd.h"

void mcu_gather_nd(const mcu_gather_nd_params *p, const void *x, const void *idx, void *y)
{
    const uint8_t *in = (const uint8_t *)x;
    uint8_t *out = (uint8_t *)y;
    const size_t es = (size_t)p->elem_bytes;
    const size_t slice = (size_t)p->slice_elems * es;
    int32_t b, t, j, n = 0;
    for (b = 0; b < p->batches; ++b) {
        const uint8_t *batch = in + (size_t)b * (size_t)p->batch_elems * es;
        for (t = 0; t < p->tuples; ++t) {
            int32_t off = 0, valid = 1;
            for (j = 0; j < p->k; ++j, ++n) {
                const int32_t v = mcu_index_wrap(mcu_index_load(idx, p->idx_dtype, n), p->dims[j]);
                valid = valid && v >= 0;
                off += v * p->strides[j];
            }
            if (valid) {
                memcpy(out, batch + (size_t)off * es, slice);
            } else {
                memset(out, 0, slice);
            }
            out += slice;
        }
    }
}
