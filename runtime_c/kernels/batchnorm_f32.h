#ifndef MCU_BATCHNORM_F32_H
#define MCU_BATCHNORM_F32_H
#include "mcu_rt.h"

/* The input viewed as [n, c, inner]; per-channel statistics and affine parameters are tensors of c floats. */
typedef struct {
    int32_t n, c, inner;
    float epsilon;
} mcu_batchnorm_f32_params;

/** Inference BatchNormalization: y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c]. */
void mcu_batchnorm_f32(const mcu_batchnorm_f32_params *p, const float *x, const float *scale, const float *bias,
                       const float *mean, const float *var, float *y);

#endif
