#include "split.h"

void mcu_split(const mcu_split_params *p, const void *x, void *const *ys)
{
    const uint8_t *in = (const uint8_t *)x;
    int32_t o, i;
    for (o = 0; o < p->outer; ++o) {
        for (i = 0; i < p->n_outputs; ++i) {
            const size_t n = (size_t)p->out_bytes[i];
            memcpy((uint8_t *)ys[i] + (size_t)o * n, in, n);
            in += n;
        }
    }
}
