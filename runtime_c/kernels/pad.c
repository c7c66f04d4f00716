#include "pad.h"

/** The input coordinate an output coordinate c reads from the surviving part [lo, hi), or -1 for the constant. */
static int32_t mcu_pad_source(int32_t mode, int32_t c, int32_t lo, int32_t hi)
{
    if (c >= lo && c < hi) {
        return c;
    }
    if (mode == MCU_PAD_EDGE) {
        return c < lo ? lo : hi - 1;
    }
    if (mode == MCU_PAD_REFLECT) {
        return c < lo ? 2 * lo - c : 2 * (hi - 1) - c;
    }
    if (mode == MCU_PAD_WRAP) {
        return lo + ((c - lo) % (hi - lo) + (hi - lo)) % (hi - lo);
    }
    return -1;
}

void mcu_pad(const mcu_pad_params *p, const void *x, void *y)
{
    const uint8_t *in = (const uint8_t *)x;
    uint8_t *out = (uint8_t *)y;
    const size_t es = (size_t)p->elem_bytes;
    int32_t idx[MCU_MAX_RANK] = {0};
    int32_t i, d;
    for (i = 0; i < p->count; ++i) {
        int32_t src = 0;
        for (d = 0; d < p->rank && src >= 0; ++d) {
            const int32_t c = mcu_pad_source(p->mode, idx[d] - p->pad_begin[d], p->lo[d], p->hi[d]);
            src = c < 0 ? -1 : src * p->in_dims[d] + c;
        }
        memcpy(out + (size_t)i * es, src < 0 ? p->value : in + (size_t)src * es, es);
        for (d = p->rank - 1; d >= 0; --d) {
            if (++idx[d] < p->out_dims[d]) {
                break;
            }
            idx[d] = 0;
        }
    }
}
