#ifndef MCU_CONV2D_F32_DEPTHWISE_H
#define MCU_CONV2D_F32_DEPTHWISE_H
#include "conv2d_f32.h"

typedef mcu_conv2d_f32_params mcu_conv2d_f32_depthwise_params;

/** Float depthwise convolution (NCHW, group == c_in, c_out a multiple of c_in; w and bias may be runtime tensors,
 * bias may be NULL): 3x3 windows of stride 1 or 2 and pads up to 1 slide along the rows, every other window is
 * walked tap by tap. Same per-output order as mcu_conv2d_f32, planes in order, each row by row. */
void mcu_conv2d_f32_depthwise(const mcu_conv2d_f32_params *p, const float *x, const float *w, const float *bias,
                              float *y);

#endif
