#include "topk.h"

/* Each (outer, inner) line keeps its best elements sorted in the output itself: element i (in input order) is
 * inserted after every kept element it does not strictly beat, so ties stay in index order. O(axis_len * k). */
void mcu_topk(const mcu_topk_params *p, const void *x, void *values, int64_t *indices)
{
    const uint8_t *in = (const uint8_t *)x;
    uint8_t *vals = (uint8_t *)values;
    const size_t es = (size_t)p->elem_bytes;
    const int32_t want = p->largest ? 1 : -1;
    int32_t o, s, i, j;
    for (o = 0; o < p->outer; ++o) {
        for (s = 0; s < p->inner; ++s) {
            const int32_t in_base = o * p->axis_len * p->inner + s;
            const int32_t out_base = o * p->k * p->inner + s;
            int32_t kept = 0;
            for (i = 0; i < p->axis_len; ++i) {
                const int32_t src = in_base + i * p->inner;
                int32_t pos = kept;
                while (pos > 0 && mcu_elem_cmp(x, src, values, out_base + (pos - 1) * p->inner, p->dtype) == want) {
                    --pos;
                }
                if (pos >= p->k) {
                    continue;
                }
                for (j = (kept < p->k ? kept : p->k - 1); j > pos; --j) {
                    const int32_t to = out_base + j * p->inner, from = to - p->inner;
                    memcpy(vals + (size_t)to * es, vals + (size_t)from * es, es);
                    indices[to] = indices[from];
                }
                memcpy(vals + (size_t)(out_base + pos * p->inner) * es, in + (size_t)src * es, es);
                indices[out_base + pos * p->inner] = i;
                kept += kept < p->k;
            }
        }
    }
}
