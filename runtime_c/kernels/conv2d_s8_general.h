#ifndef MCU_CONV2D_S8_GENERAL_H
#define MCU_CONV2D_S8_GENERAL_H
#include "conv2d_s8.h"

/* conv2d_s8's general path (mcucomp/ops/conv2d_s8.py PATHS). */

/* The generated C names a call's params type after its function. */
typedef mcu_conv2d_s8_params mcu_conv2d_s8_general_params;

/** The general path of the int8 convolution (any geometry and groups; no scratch). */
void mcu_conv2d_s8_general(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch);

#endif
