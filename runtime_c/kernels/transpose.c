#include "transpose.h"

/** Copy one element; fixed sizes let the compiler use single loads and stores. */
static void mcu_transpose_elem(uint8_t *dst, const uint8_t *src, size_t es)
{
    switch (es) {
    case 1:
        *dst = *src;
        break;
    case 2:
        memcpy(dst, src, 2);
        break;
    case 4:
        memcpy(dst, src, 4);
        break;
    case 8:
        memcpy(dst, src, 8);
        break;
    default:
        memcpy(dst, src, es);
        break;
    }
}

void mcu_transpose(const mcu_transpose_params *p, const void *x, void *y)
{
    const uint8_t *in = (const uint8_t *)x;
    uint8_t *out = (uint8_t *)y;
    const size_t es = (size_t)p->elem_bytes;
    const int32_t last = p->rank - 1;
    const int32_t row = p->dims[last], step = p->strides[last];
    int32_t idx[MCU_TRANSPOSE_MAX_DIMS] = {0};
    int32_t src = p->offset, done, j, d;
    for (done = 0; done < p->count; done += row) {
        if (step == 1) {
            /* the innermost dim is contiguous in the input too: one block copy per row */
            memcpy(out, in + (size_t)src * es, (size_t)row * es);
            out += (size_t)row * es;
        } else {
            for (j = 0; j < row; ++j) {
                mcu_transpose_elem(out, in + (size_t)(src + j * step) * es, es);
                out += es;
            }
        }
        for (d = last - 1; d >= 0; --d) {
            src += p->strides[d];
            if (++idx[d] < p->dims[d]) {
                break;
            }
            src -= p->strides[d] * p->dims[d];
            idx[d] = 0;
        }
    }
}
