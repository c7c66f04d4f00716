#ifndef MCU_MAXPOOL_F32_H
#define MCU_MAXPOOL_F32_H
#include "mcu_rt.h"

typedef struct {
    mcu_conv_geom g;
} mcu_maxpool_f32_params;

/** Max pooling with pads, strides and dilations (NCHW, 1-D uses h = 1), also GlobalMaxPool. */
void mcu_maxpool_f32(const mcu_maxpool_f32_params *p, const float *x, float *y);

#endif
