#ifndef MCU_CONV2D_S8_H
#define MCU_CONV2D_S8_H
#include "mcu_rt.h"

typedef struct {
    mcu_conv_geom g;
    int32_t x_zp;
    const int32_t *w_zp; /* per output channel, or NULL for all zero */
    mcu_requant rq;
} mcu_conv2d_s8_params;

/** int8 convolution (NCHW, groups, dilations, pads): int32 accumulate, bias, requantize; bias may be NULL. */
void mcu_conv2d_s8(const mcu_conv2d_s8_params *p, const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y);

#endif
