#ifndef MCU_PRELU_F32_H
#define MCU_PRELU_F32_H
#include "mcu_rt.h"

/* count output elements; bc walks x (a) and slope (b) over the output shape. */
typedef struct {
    int32_t count;
    mcu_bcast bc;
} mcu_prelu_f32_params;

/** y = x < 0 ? slope * x : x with numpy broadcasting (NaN passes through). */
void mcu_prelu_f32(const mcu_prelu_f32_params *p, const float *x, const float *slope, float *y);

#endif
