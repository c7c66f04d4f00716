#ifndef MCU_CLAMP_F32_H
#define MCU_CLAMP_F32_H
#include "mcu_rt.h"

/* Relu: lo = 0; Clip: lo/hi; LeakyRelu: neg_slope = alpha (1 leaves negatives unchanged). */
typedef struct {
    int32_t count;
    float neg_slope, lo, hi;
} mcu_clamp_f32_params;

/** y = clamp(x < 0 ? x * neg_slope : x, lo, hi); NaN passes through. */
void mcu_clamp_f32(const mcu_clamp_f32_params *p, const float *x, float *y);

#endif
