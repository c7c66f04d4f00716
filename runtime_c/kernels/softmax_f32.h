#ifndef MCU_SOFTMAX_F32_H
#define MCU_SOFTMAX_F32_H
#include "mcu_rt.h"

/* What each line along the axis becomes. */
#define MCU_SOFTMAX 0
#define MCU_LOG_SOFTMAX 1
#define MCU_HARDMAX 2

/* The input viewed as [outer, axis_len, inner]; the op (mode) runs along the middle dim. */
typedef struct {
    int32_t outer, axis_len, inner;
    int32_t mode;
} mcu_softmax_f32_params;

/** Softmax, LogSoftmax or Hardmax along one axis (opset-13 semantics). */
void mcu_softmax_f32(const mcu_softmax_f32_params *p, const float *x, float *y);

#endif
