#include "fill.h"

void mcu_fill(const mcu_fill_params *p, void *y)
{
    uint8_t *out = (uint8_t *)y;
    const size_t es = (size_t)p->elem_bytes;
    int32_t r, c;
    for (r = 0; r < p->rows; ++r) {
        for (c = 0; c < p->cols; ++c) {
            memcpy(out, p->has_diag && c - r == p->k ? p->diag : p->value, es);
            out += es;
        }
    }
}
