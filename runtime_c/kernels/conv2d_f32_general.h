#ifndef MCU_CONV2D_F32_GENERAL_H
#define MCU_CONV2D_F32_GENERAL_H
#include "conv2d_f32.h"

/* conv2d_f32's general path (mcucomp/ops/conv2d_f32.py PATHS). */

/* The generated C names a call's params type after its function. */
typedef mcu_conv2d_f32_params mcu_conv2d_f32_general_params;

/** Float convolution (NC[D]HW, groups, dilations, pads), one output at a time; w and bias may be runtime tensors;
 * bias may be NULL. */
void mcu_conv2d_f32_general(const mcu_conv2d_f32_params *p, const float *x, const float *w, const float *bias,
                            float *y);

#endif
