#include "argminmax.h"

void mcu_argminmax(const mcu_argminmax_params *p, const void *x, int64_t *y)
{
    const int32_t want = p->is_max ? 1 : -1;
    int32_t o, s, i;
    for (o = 0; o < p->outer; ++o) {
        for (s = 0; s < p->inner; ++s) {
            const int32_t base = o * p->axis_len * p->inner + s;
            int32_t best = 0;
            for (i = 1; i < p->axis_len; ++i) {
                const int32_t c = mcu_elem_cmp(x, base + i * p->inner, x, base + best * p->inner, p->dtype);
                if (c == want || (c == 0 && p->select_last)) {
                    best = i;
                }
            }
            y[o * p->inner + s] = best;
        }
    }
}
