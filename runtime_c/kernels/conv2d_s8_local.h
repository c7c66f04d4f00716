#ifndef MCU_CONV2D_S8_LOCAL_H
#define MCU_CONV2D_S8_LOCAL_H
#include "conv2d_s8.h"

/* conv2d_s8's local path (mcucomp/ops/conv2d_s8.py PATHS). */

/* The generated C names a call's params type after its function. */
typedef mcu_conv2d_s8_params mcu_conv2d_s8_local_params;

/** The local path of the int8 convolution (group 1, two windows of at most MCU_CONV2D_S8_LOCAL_COL bytes: im2col on the
 * stack; no scratch). */
void mcu_conv2d_s8_local(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch);

#endif
