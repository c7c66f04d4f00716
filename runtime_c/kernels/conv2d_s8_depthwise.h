#ifndef MCU_CONV2D_S8_DEPTHWISE_H
#define MCU_CONV2D_S8_DEPTHWISE_H
#include "conv2d_s8.h"

/* conv2d_s8's depthwise path (mcucomp/ops/conv2d_s8.py PATHS). */

/* The generated C names a call's params type after its function. */
typedef mcu_conv2d_s8_params mcu_conv2d_s8_depthwise_params;

/** The depthwise path of the int8 convolution (group == c_in == c_out, no weight zero points; no scratch). */
void mcu_conv2d_s8_depthwise(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch);

#endif
