#ifndef MCU_CONV2D_S8_DIRECT_H
#define MCU_CONV2D_S8_DIRECT_H
#include "conv2d_s8.h"

/* conv2d_s8's direct path (mcucomp/ops/conv2d_s8.py PATHS). */

/* The generated C names a call's params type after its function. */
typedef mcu_conv2d_s8_params mcu_conv2d_s8_direct_params;

/** The direct path of the int8 convolution (group 1; no scratch: windows read in place, padding from zrow). */
void mcu_conv2d_s8_direct(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch);

#endif
