#include "where.h"

void mcu_where(const mcu_where_params *p, const uint8_t *c, const void *x, const void *y, void *out)
{
    const uint8_t *px = (const uint8_t *)x;
    const uint8_t *py = (const uint8_t *)y;
    uint8_t *po = (uint8_t *)out;
    const size_t es = (size_t)p->elem_size;
    int32_t idx_xy[MCU_MAX_RANK] = {0};
    int32_t idx_c[MCU_MAX_RANK] = {0};
    int32_t i, ix = 0, iy = 0, ic = 0, unused = 0;
    for (i = 0; i < p->count; ++i) {
        /* memcpy moves the bytes of any dtype without reading them through a foreign type */
        memcpy(po + (size_t)i * es, c[ic] ? px + (size_t)ix * es : py + (size_t)iy * es, es);
        mcu_bcast_next(&p->xy, idx_xy, &ix, &iy);
        mcu_bcast_next(&p->cond, idx_c, &ic, &unused);
    }
}
