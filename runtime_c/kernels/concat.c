#include "concat.h"

void mcu_concat(const mcu_concat_params *p, const void *const *xs, void *y)
{
    uint8_t *out = (uint8_t *)y;
    int32_t o, i;
    for (o = 0; o < p->outer; ++o) {
        for (i = 0; i < p->n_inputs; ++i) {
            const size_t n = (size_t)p->in_bytes[i];
            memcpy(out, (const uint8_t *)xs[i] + (size_t)o * n, n);
            out += n;
        }
    }
}
