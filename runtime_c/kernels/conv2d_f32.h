#ifndef MCU_CONV2D_F32_H
#define MCU_CONV2D_F32_H
#include "mcu_rt.h"

typedef struct {
    mcu_conv_geom g;
    float act_min, act_max;
} mcu_conv2d_f32_params;

/** Float convolution (NCHW, groups, dilations, pads); bias may be NULL. */
void mcu_conv2d_f32(const mcu_conv2d_f32_params *p, const float *x, const float *w, const float *bias, float *y);

#endif
