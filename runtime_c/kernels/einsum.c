#include "einsum.h"

/* Every output accumulates from zero in the element type, in the row-major order of the summed labels, one multiply
 * and one add per term (no fused multiply-add). Integer types wrap (computed in uint64, low bits stored). */
void mcu_einsum(const mcu_einsum_params *p, const void *a, const void *b, void *y)
{
    int32_t oidx[MCU_MAX_RANK] = {0};
    int32_t ooff[MCU_WALK_OPS] = {0};
    int32_t idx[MCU_MAX_RANK] = {0};
    const int32_t count = mcu_walk_count(&p->outer), n = mcu_walk_count(&p->inner);
    const int32_t two = p->operands == 2;
    int32_t o, i;
    for (o = 0; o < count; ++o) {
        int32_t off[MCU_WALK_OPS];
        off[0] = ooff[0];
        off[1] = ooff[1];
        off[2] = 0;
        if (p->dtype == MCU_DT_FLOAT) {
            const float *fa = (const float *)a, *fb = (const float *)b;
            float acc = 0.0f;
            for (i = 0; i < n; ++i) {
                acc += two ? fa[off[0]] * fb[off[1]] : fa[off[0]];
                mcu_walk_next(&p->inner, idx, off);
            }
            ((float *)y)[o] = acc;
        } else if (p->dtype == MCU_DT_DOUBLE) {
            const double *da = (const double *)a, *db = (const double *)b;
            double acc = 0.0;
            for (i = 0; i < n; ++i) {
                acc += two ? da[off[0]] * db[off[1]] : da[off[0]];
                mcu_walk_next(&p->inner, idx, off);
            }
            ((double *)y)[o] = acc;
        } else {
            uint64_t acc = 0;
            for (i = 0; i < n; ++i) {
                const uint64_t va = (uint64_t)mcu_get_int(a, p->dtype, off[0]);
                acc += two ? va * (uint64_t)mcu_get_int(b, p->dtype, off[1]) : va;
                mcu_walk_next(&p->inner, idx, off);
            }
            mcu_set_int(y, p->dtype, o, acc);
        }
        mcu_walk_next(&p->outer, oidx, ooff);
    }
}
