#ifndef MCU_CONV2D_S8_POINTWISE_H
#define MCU_CONV2D_S8_POINTWISE_H
#include "conv2d_s8.h"

/* conv2d_s8's pointwise path (mcucomp/ops/conv2d_s8.py PATHS). */

/* The generated C names a call's params type after its function. */
typedef mcu_conv2d_s8_params mcu_conv2d_s8_pointwise_params;

/** The pointwise path of the int8 convolution (1x1, unpadded, group 1, any stride; no scratch). */
void mcu_conv2d_s8_pointwise(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch);

#endif
