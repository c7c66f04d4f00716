#ifndef MCU_CONV2D_S8_IM2COL_H
#define MCU_CONV2D_S8_IM2COL_H
#include "conv2d_s8.h"

/* conv2d_s8's im2col path (mcucomp/ops/conv2d_s8.py PATHS). */

/* The generated C names a call's params type after its function. */
typedef mcu_conv2d_s8_params mcu_conv2d_s8_im2col_params;

/** The im2col path of the int8 convolution (group 1; scratch: two pixels' windows (c_in * k_h * k_w each, rounded up to
 * 4)). */
void mcu_conv2d_s8_im2col(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch);

#endif
