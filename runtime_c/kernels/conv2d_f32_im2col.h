#ifndef MCU_CONV2D_F32_IM2COL_H
#define MCU_CONV2D_F32_IM2COL_H
#include "conv2d_f32.h"

/* conv2d_f32's im2col path (mcucomp/ops/conv2d_f32.py PATHS). */

/* The generated C names a call's params type after its function. */
typedef mcu_conv2d_f32_params mcu_conv2d_f32_im2col_params;

/** 1-D and 2-D convs of group 1 with constant weights (p->w, p->bias packed, conv2d_f32_gemm.h), any stride,
 * dilation and padding; scratch: MCU_F32_BLOCK_PX * c_in * k_h * k_w floats (one block's columns). */
void mcu_conv2d_f32_im2col(const mcu_conv2d_f32_params *p, const float *x, float *y, void *scratch);

#endif
