#ifndef MCU_TANH_F32_H
#define MCU_TANH_F32_H
#include "mcu_rt.h"

typedef struct {
    int32_t count;
} mcu_tanh_f32_params;

/** y = tanh(x) element-wise, with mcu_math.h's tanh (host and target agree bit for bit). */
void mcu_tanh_f32(const mcu_tanh_f32_params *p, const float *x, float *y);

#endif
