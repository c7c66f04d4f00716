#include "pow.h"

#include <math.h>

#include "cast.h"
#include "mcu_math.h"

/** Element i of an exponent tensor of any numeric type as a double (exact for floats and |integers| < 2^53). */
static double mcu_pow_exponent(const void *e, int32_t dtype, int32_t i)
{
    switch (dtype) {
    case MCU_DT_FLOAT:
        return (double)((const float *)e)[i];
    case MCU_DT_DOUBLE:
        return ((const double *)e)[i];
    case MCU_DT_INT8:
        return (double)((const int8_t *)e)[i];
    case MCU_DT_INT16:
        return (double)((const int16_t *)e)[i];
    case MCU_DT_INT32:
        return (double)((const int32_t *)e)[i];
    case MCU_DT_INT64:
        return (double)((const int64_t *)e)[i];
    case MCU_DT_UINT16:
        return (double)((const uint16_t *)e)[i];
    case MCU_DT_UINT32:
        return (double)((const uint32_t *)e)[i];
    case MCU_DT_UINT64:
        return (double)((const uint64_t *)e)[i];
    default:
        return (double)((const uint8_t *)e)[i];
    }
}

/** x^e for an integer base, as the low 64 bits of the result (the caller truncates to its type). */
static uint64_t mcu_pow_int(int64_t x, double e)
{
    uint64_t r = 1u, sq = (uint64_t)x, k;
    int64_t n;
    if (e != floor(e)) {
        /* fractional (or NaN) exponent: truncate powf like a float-to-int cast */
        return (uint64_t)mcu_cast_f64_to_i64((double)mcu_powf((float)x, mcu_cast_f64_to_f32(e)));
    }
    n = mcu_cast_f64_to_i64(e);
    if (n < 0) {
        /* |1/x^k| < 1 truncates to 0 unless |x| == 1 */
        if (x == 1) {
            return 1u;
        }
        return x == -1 ? ((n & 1) ? ~(uint64_t)0 : 1u) : 0u;
    }
    /* square and multiply in uint64_t: wraps like numpy's integer power, never overflows a signed type */
    for (k = (uint64_t)n; k != 0u; k >>= 1) {
        if (k & 1u) {
            r *= sq;
        }
        sq *= sq;
    }
    return r;
}

void mcu_pow(const mcu_pow_params *p, const void *x, const void *e, void *y)
{
    int32_t idx[MCU_MAX_RANK] = {0};
    int32_t i, ix = 0, ie = 0;
    for (i = 0; i < p->count; ++i) {
        const double ev = mcu_pow_exponent(e, p->exp_dtype, ie);
        switch (p->base_dtype) {
        case MCU_DT_FLOAT:
            ((float *)y)[i] = mcu_powf(((const float *)x)[ix], mcu_cast_f64_to_f32(ev));
            break;
        case MCU_DT_INT32:
            ((int32_t *)y)[i] = (int32_t)mcu_pow_int(((const int32_t *)x)[ix], ev);
            break;
        default:
            ((int64_t *)y)[i] = (int64_t)mcu_pow_int(((const int64_t *)x)[ix], ev);
            break;
        }
        mcu_bcast_next(&p->bc, idx, &ix, &ie);
    }
}
