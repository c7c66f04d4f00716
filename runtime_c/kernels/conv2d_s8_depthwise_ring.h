#ifndef MCU_CONV2D_S8_DEPTHWISE_RING_H
#define MCU_CONV2D_S8_DEPTHWISE_RING_H
#include "conv2d_s8.h"

/* conv2d_s8's depthwise ring path (mcucomp/ops/conv2d_s8.py PATHS). */

/* The generated C names a call's params type after its function. */
typedef mcu_conv2d_s8_params mcu_conv2d_s8_depthwise_ring_params;

/** The depthwise ring path of the int8 convolution (depthwise in place (y == x), stride 1 on the same grid; no
 * scratch). */
void mcu_conv2d_s8_depthwise_ring(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch);

#endif
