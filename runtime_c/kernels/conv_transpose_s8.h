#ifndef MCU_CONV_TRANSPOSE_S8_H
#define MCU_CONV_TRANSPOSE_S8_H
#include "mcu_rt.h"

/* g: the window (pad_t/pad_l: the begin pads, which place output o at input i * stride - pad + k * dil). */
typedef struct {
    mcu_conv_geom g;
    int32_t x_zp;
    const int32_t *w_zp; /* per output channel, or NULL for all zero */
    mcu_requant rq;      /* per output channel */
    int32_t nhwc;        /* activations stored N, H, W, C (1) or N, C, H, W (0) */
} mcu_conv_transpose_s8_params;

/** int8 transposed convolution (NCHW or NHWC, groups, strides, dilations, pads): w is [c_in, c_out / group, k_h, k_w];
 * int32 accumulate, bias (may be NULL), requantize. */
void mcu_conv_transpose_s8(const mcu_conv_transpose_s8_params *p, const int8_t *x, const int8_t *w,
                           const int32_t *bias, int8_t *y);

#endif
