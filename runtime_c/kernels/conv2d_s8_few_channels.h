#ifndef MCU_CONV2D_S8_FEW_CHANNELS_H
#define MCU_CONV2D_S8_FEW_CHANNELS_H
#include "conv2d_s8.h"

/* conv2d_s8's few channels path (mcucomp/ops/conv2d_s8.py PATHS). */

/* The generated C names a call's params type after its function. */
typedef mcu_conv2d_s8_params mcu_conv2d_s8_few_channels_params;

/** The few channels path of the int8 convolution (group 1, c_in <= 4, no w_zp, small windows (MCU_CONV2D_S8_FEW_TAPS);
 * no scratch). */
void mcu_conv2d_s8_few_channels(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch);

#endif
