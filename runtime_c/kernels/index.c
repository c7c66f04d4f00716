#include "index.h"

/** 2^62: floats of smaller magnitude convert to int64 without overflow. */
#define MCU_INDEX_FLOAT_LIMIT 4611686018427387904.0

int64_t mcu_index_load(const void *idx, int32_t dtype, int32_t i)
{
    double f;
    switch (dtype) {
    case MCU_DT_UINT64: {
        const uint64_t u = ((const uint64_t *)idx)[i];
        return u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
    }
    case MCU_DT_FLOAT:
        f = (double)((const float *)idx)[i];
        break;
    case MCU_DT_DOUBLE:
        f = ((const double *)idx)[i];
        break;
    default:
        return mcu_get_int(idx, dtype, i);
    }
    if (!(f > -MCU_INDEX_FLOAT_LIMIT && f < MCU_INDEX_FLOAT_LIMIT)) {
        return INT64_MIN;
    }
    return (int64_t)f;
}

int32_t mcu_index_wrap(int64_t v, int32_t n)
{
    if (v < 0) {
        v += n;
    }
    return (v >= 0 && v < n) ? (int32_t)v : -1;
}
