#ifndef MCU_CAST_H
#define MCU_CAST_H
#include <math.h>

#include "mcu_rt.h"

/* from, to: MCU_DT_* of x and y; count elements. */
typedef struct {
    int32_t from;
    int32_t to;
    int32_t count;
} mcu_cast_params;

/** y = x converted element-wise (numpy astype for in-range values; see mcu_cast_f64_to_i64 for the rest). */
void mcu_cast(const mcu_cast_params *p, const void *x, void *y);

/** A double truncated toward zero into int64; out-of-range values saturate and NaN gives 0 (C leaves both
 *  undefined). */
static inline int64_t mcu_cast_f64_to_i64(double v)
{
    if (v != v) {
        return 0;
    }
    if (v >= 9223372036854775808.0) {
        return INT64_MAX;
    }
    if (v < -9223372036854775808.0) {
        return INT64_MIN;
    }
    return (int64_t)v;
}

/** A double rounded to float; values at or beyond FLT_MAX + half an ulp give +-infinity as IEEE rounding does (the C
 *  conversion would be undefined there). */
static inline float mcu_cast_f64_to_f32(double v)
{
    const double overflow = 0x1.ffffffp127;
    return v >= overflow ? INFINITY : (v <= -overflow ? -INFINITY : (float)v);
}

#endif
