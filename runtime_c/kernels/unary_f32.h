#ifndef MCU_UNARY_F32_H
#define MCU_UNARY_F32_H
#include "mcu_rt.h"

/* Op codes: mcucomp/ops/unary_f32.py CODES. */
enum {
    MCU_UNARY_ABS = 0, MCU_UNARY_NEG = 1, MCU_UNARY_FLOOR = 2, MCU_UNARY_CEIL = 3, MCU_UNARY_ROUND = 4,
    MCU_UNARY_SIGN = 5, MCU_UNARY_RECIPROCAL = 6, MCU_UNARY_SQRT = 7, MCU_UNARY_SOFTSIGN = 8,
    MCU_UNARY_HARDSIGMOID = 9, MCU_UNARY_HARDSWISH = 10, MCU_UNARY_THRESHOLDED_RELU = 11, MCU_UNARY_SHRINK = 12
};

/* alpha/beta: HardSigmoid and HardSwish alpha * x + beta; ThresholdedRelu alpha; Shrink lambd (alpha), bias (beta). */
typedef struct {
    int32_t op;
    int32_t count;
    float alpha, beta;
} mcu_unary_f32_params;

/** y = f(x) element-wise for the ONNX op selected by p->op (in place allowed). */
void mcu_unary_f32(const mcu_unary_f32_params *p, const float *x, float *y);

#endif
