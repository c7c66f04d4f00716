#include "strided.h"

int32_t mcu_walk_count(const mcu_walk *w)
{
    int32_t n = 1, d;
    for (d = 0; d < w->rank; ++d) {
        n *= w->dims[d];
    }
    return n;
}

void mcu_walk_next(const mcu_walk *w, int32_t *idx, int32_t *off)
{
    int32_t d, k;
    for (d = w->rank - 1; d >= 0; --d) {
        idx[d] += 1;
        for (k = 0; k < MCU_WALK_OPS; ++k) {
            off[k] += w->strides[k][d];
        }
        if (idx[d] < w->dims[d]) {
            return;
        }
        for (k = 0; k < MCU_WALK_OPS; ++k) {
            off[k] -= w->strides[k][d] * w->dims[d];
        }
        idx[d] = 0;
    }
}

int32_t mcu_dtype_bytes(int32_t dtype)
{
    switch (dtype) {
    case MCU_DT_UINT8:
    case MCU_DT_INT8:
    case MCU_DT_BOOL:
        return 1;
    case MCU_DT_UINT16:
    case MCU_DT_INT16:
        return 2;
    case MCU_DT_INT64:
    case MCU_DT_UINT64:
    case MCU_DT_DOUBLE:
        return 8;
    default:
        return 4;
    }
}

int64_t mcu_int_key(const void *x, int32_t dtype, int32_t i)
{
    if (dtype == MCU_DT_UINT64) {
        const uint64_t flipped = ((const uint64_t *)x)[i] ^ ((uint64_t)1 << 63);
        int64_t key;
        memcpy(&key, &flipped, sizeof key);
        return key;
    }
    return mcu_get_int(x, dtype, i);
}

int32_t mcu_elem_cmp(const void *a, int32_t i, const void *b, int32_t j, int32_t dtype)
{
    if (dtype == MCU_DT_FLOAT) {
        const float u = ((const float *)a)[i], v = ((const float *)b)[j];
        return (u > v) - (u < v);
    }
    if (dtype == MCU_DT_DOUBLE) {
        const double u = ((const double *)a)[i], v = ((const double *)b)[j];
        return (u > v) - (u < v);
    }
    {
        const int64_t u = mcu_int_key(a, dtype, i), v = mcu_int_key(b, dtype, j);
        return (u > v) - (u < v);
    }
}
