#include "cast.h"

/* Each element is read as double (float types: exact), uint64_t (uint64) or int64_t (the other integer types and
 * bool: exact) and written by the mcu_cast_from_* function of that class, so every conversion rounds at most once. */

/** Store the low bits of v into element i of an integer or bool array: modular, as numpy's astype. */
static void mcu_cast_store_int(int32_t to, void *y, int32_t i, uint64_t v)
{
    mcu_set_int(y, to, i, to == MCU_DT_BOOL ? (uint64_t)(v != 0u) : v);
}

/** Convert a float or double value. */
static void mcu_cast_from_double(int32_t to, void *y, int32_t i, double v)
{
    switch (to) {
    case MCU_DT_FLOAT:
        ((float *)y)[i] = mcu_cast_f64_to_f32(v);
        break;
    case MCU_DT_DOUBLE:
        ((double *)y)[i] = v;
        break;
    case MCU_DT_BOOL:
        ((uint8_t *)y)[i] = (uint8_t)(v != 0.0);
        break;
    case MCU_DT_UINT64:
        /* [2^63, 2^64) only fits the unsigned type; everything else goes through int64 like the other types */
        if (v >= 9223372036854775808.0) {
            ((uint64_t *)y)[i] = v >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)v;
        } else {
            ((uint64_t *)y)[i] = (uint64_t)mcu_cast_f64_to_i64(v);
        }
        break;
    default:
        mcu_cast_store_int(to, y, i, (uint64_t)mcu_cast_f64_to_i64(v));
        break;
    }
}

/** Convert a signed integer value. */
static void mcu_cast_from_signed(int32_t to, void *y, int32_t i, int64_t v)
{
    switch (to) {
    case MCU_DT_FLOAT:
        ((float *)y)[i] = (float)v;
        break;
    case MCU_DT_DOUBLE:
        ((double *)y)[i] = (double)v;
        break;
    default:
        mcu_cast_store_int(to, y, i, (uint64_t)v);
        break;
    }
}

/** Convert a uint64 value. */
static void mcu_cast_from_unsigned(int32_t to, void *y, int32_t i, uint64_t v)
{
    switch (to) {
    case MCU_DT_FLOAT:
        ((float *)y)[i] = (float)v;
        break;
    case MCU_DT_DOUBLE:
        ((double *)y)[i] = (double)v;
        break;
    default:
        mcu_cast_store_int(to, y, i, v);
        break;
    }
}

void mcu_cast(const mcu_cast_params *p, const void *x, void *y)
{
    int32_t i;
    for (i = 0; i < p->count; ++i) {
        switch (p->from) {
        case MCU_DT_FLOAT:
            mcu_cast_from_double(p->to, y, i, (double)((const float *)x)[i]);
            break;
        case MCU_DT_DOUBLE:
            mcu_cast_from_double(p->to, y, i, ((const double *)x)[i]);
            break;
        case MCU_DT_UINT64:
            mcu_cast_from_unsigned(p->to, y, i, ((const uint64_t *)x)[i]);
            break;
        default: /* the other integer types and bool */
            mcu_cast_from_signed(p->to, y, i, mcu_get_int(x, p->from, i));
            break;
        }
    }
}
