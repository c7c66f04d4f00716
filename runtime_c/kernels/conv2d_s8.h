#ifndef MCU_CONV2D_S8_H
#define MCU_CONV2D_S8_H
#include "mcu_rt.h"

#define MCU_CONV2D_S8_GENERAL 0   /* any geometry */
#define MCU_CONV2D_S8_DEPTHWISE 1 /* group == c_in == c_out: one input plane per output plane */

typedef struct {
    mcu_conv_geom g;
    int32_t x_zp;
    const int32_t *w_zp; /* per output channel, or NULL for all zero */
    mcu_requant rq;
    int32_t path;         /* MCU_CONV2D_S8_*; the pointwise path is selected by a scratch instead */
    const int32_t *kbias; /* fast paths: bias[oc] - x_zp * sum_k (w[oc][k] - w_zp[oc]), or NULL (general path) */
} mcu_conv2d_s8_params;

/** int8 convolution (NCHW, groups, dilations, pads): int32 accumulate, bias, requantize; bias may be NULL.
 * scratch: NULL, or c_in bytes for a 1x1 stride-1 unpadded ungrouped conv of batch 1, which then runs pixel by
 * pixel so that y may start at x's address (see mcucomp/ops/_overlap.py pointwise). */
void mcu_conv2d_s8(const mcu_conv2d_s8_params *p, const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
                   void *scratch);

#endif
