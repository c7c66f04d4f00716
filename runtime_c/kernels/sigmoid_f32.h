#ifndef MCU_SIGMOID_F32_H
#define MCU_SIGMOID_F32_H
#include "mcu_rt.h"

typedef struct {
    int32_t count;
} mcu_sigmoid_f32_params;

/** y = sigmoid(x) element-wise, with mcu_math.h's sigmoid (host and target agree bit for bit). */
void mcu_sigmoid_f32(const mcu_sigmoid_f32_params *p, const float *x, float *y);

#endif
