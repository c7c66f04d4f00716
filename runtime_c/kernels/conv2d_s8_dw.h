#ifndef MCU_CONV2D_S8_DW_H
#define MCU_CONV2D_S8_DW_H
#include "conv2d_s8.h"

/** The depthwise path of mcu_conv2d_s8 (MCU_CONV2D_S8_DEPTHWISE: group == c_in == c_out, no weight zero points). */
void mcu_conv2d_s8_dw(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y);

#endif
