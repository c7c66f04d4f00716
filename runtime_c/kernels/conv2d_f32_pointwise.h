#ifndef MCU_CONV2D_F32_POINTWISE_H
#define MCU_CONV2D_F32_POINTWISE_H
#include "conv2d_f32.h"

/* conv2d_f32's pointwise path (mcucomp/ops/conv2d_f32.py PATHS). */

/* The generated C names a call's params type after its function. */
typedef mcu_conv2d_f32_params mcu_conv2d_f32_pointwise_params;

/** 1x1, stride 1, unpadded, group 1, batch 1, constant weights (p->w, p->bias packed, conv2d_f32_gemm.h); scratch:
 * MCU_F32_BLOCK_PX * c_in floats. y may start at x's address (see mcucomp/ops/_overlap.py pointwise). */
void mcu_conv2d_f32_pointwise(const mcu_conv2d_f32_params *p, const float *x, float *y, void *scratch);

#endif
