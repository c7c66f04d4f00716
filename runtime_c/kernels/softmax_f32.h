#ifndef MCU_SOFTMAX_F32_H
#define MCU_SOFTMAX_F32_H
#include "mcu_rt.h"

/* The input viewed as [outer, axis_len, inner]; softmax runs along the middle dim. */
typedef struct {
    int32_t outer, axis_len, inner;
} mcu_softmax_f32_params;

/** Softmax along one axis (opset-13 semantics). */
void mcu_softmax_f32(const mcu_softmax_f32_params *p, const float *x, float *y);

#endif
