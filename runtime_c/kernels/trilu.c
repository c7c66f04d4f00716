#include "trilu.h"

/** c clamped to [0, cols]. */
static size_t mcu_trilu_col(int32_t c, int32_t cols)
{
    return (size_t)(c < 0 ? 0 : (c > cols ? cols : c));
}

void mcu_trilu(const mcu_trilu_params *p, const void *x, void *y)
{
    const uint8_t *in = (const uint8_t *)x;
    uint8_t *out = (uint8_t *)y;
    const size_t es = (size_t)p->elem_bytes;
    const size_t row = (size_t)p->cols * es;
    int32_t b, r;
    for (b = 0; b < p->batches; ++b) {
        for (r = 0; r < p->rows; ++r) {
            /* upper keeps columns [r + k, cols), lower keeps [0, r + k + 1) */
            const size_t split = mcu_trilu_col(p->upper ? r + p->k : r + p->k + 1, p->cols) * es;
            if (p->upper) {
                memset(out, 0, split);
                memmove(out + split, in + split, row - split);
            } else {
                memmove(out, in, split);
                memset(out + split, 0, row - split);
            }
            in += row;
            out += row;
        }
    }
}
