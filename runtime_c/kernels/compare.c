#include "compare.h"

/* One loop per element type; the native comparison of T is exact for every type (no widening). */
#define MCU_COMPARE_LOOP(T)                                                                                        \
    do {                                                                                                           \
        const T *pa = (const T *)a;                                                                                \
        const T *pb = (const T *)b;                                                                                \
        for (i = 0; i < p->count; ++i) {                                                                           \
            const T va = pa[ia], vb = pb[ib];                                                                      \
            y[i] = (uint8_t)(((p->mask & MCU_COMPARE_LT) && va < vb) || ((p->mask & MCU_COMPARE_EQ) && va == vb)  \
                             || ((p->mask & MCU_COMPARE_GT) && va > vb));                                          \
            mcu_bcast_next(&p->bc, idx, &ia, &ib);                                                                 \
        }                                                                                                          \
    } while (0)

void mcu_compare(const mcu_compare_params *p, const void *a, const void *b, uint8_t *y)
{
    int32_t idx[MCU_MAX_RANK] = {0};
    int32_t i, ia = 0, ib = 0;
    switch (p->dtype) {
    case MCU_DT_FLOAT:
        MCU_COMPARE_LOOP(float);
        break;
    case MCU_DT_DOUBLE:
        MCU_COMPARE_LOOP(double);
        break;
    case MCU_DT_INT8:
        MCU_COMPARE_LOOP(int8_t);
        break;
    case MCU_DT_INT16:
        MCU_COMPARE_LOOP(int16_t);
        break;
    case MCU_DT_INT32:
        MCU_COMPARE_LOOP(int32_t);
        break;
    case MCU_DT_INT64:
        MCU_COMPARE_LOOP(int64_t);
        break;
    case MCU_DT_UINT16:
        MCU_COMPARE_LOOP(uint16_t);
        break;
    case MCU_DT_UINT32:
        MCU_COMPARE_LOOP(uint32_t);
        break;
    case MCU_DT_UINT64:
        MCU_COMPARE_LOOP(uint64_t);
        break;
    default: /* uint8 and bool */
        MCU_COMPARE_LOOP(uint8_t);
        break;
    }
}
