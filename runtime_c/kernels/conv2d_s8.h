#ifndef MCU_CONV2D_S8_H
#define MCU_CONV2D_S8_H
#include "mcu_rt.h"

/* Code paths (mcucomp/ops/conv2d_s8.py PATHS; `mcucomp show` names the one each layer takes). */
#define MCU_CONV2D_S8_GENERAL 0   /* any geometry and groups; no scratch */
#define MCU_CONV2D_S8_DEPTHWISE 1 /* group == c_in == c_out; no scratch */
#define MCU_CONV2D_S8_POINTWISE 2 /* 1x1, unpadded, group 1, any stride; no scratch */
#define MCU_CONV2D_S8_IM2COL 3    /* group 1; scratch: two pixels' windows (c_in * k_h * k_w each, rounded up to 4) */
#define MCU_CONV2D_S8_DIRECT 4    /* group 1; no scratch: windows read in place, padding from zrow */
#define MCU_CONV2D_S8_LOCAL 5     /* group 1, two windows of at most MCU_CONV2D_S8_LOCAL_COL bytes: im2col on the stack */

/* Stack bytes of the local path's two gathered windows (mcucomp/ops/conv2d_s8.py LOCAL_COL). */
#define MCU_CONV2D_S8_LOCAL_COL 96

typedef struct {
    mcu_conv_geom g;
    int32_t x_zp;
    const int32_t *w_zp; /* per output channel, or NULL for all zero */
    mcu_requant rq;
    int32_t path;         /* MCU_CONV2D_S8_* */
    int32_t down;         /* pointwise, im2col, general: output pixels from the last down (else from the first up) */
    const int8_t *w;      /* weights arranged for the path (mcucomp/ops/conv2d_s8.py packed_weights) */
    const int32_t *kbias; /* bias[oc] - x_zp * sum_k (w[oc][k] - w_zp[oc]), per output channel */
    const int8_t *zrow;   /* direct path: k_w * c_in bytes of x_zp (the padding's taps); else NULL */
} mcu_conv2d_s8_params;

/** int8 convolution, channels-last (x: N,H,W,C_in; y: N,H_out,W_out,C_out), groups, dilations, pads: int32
 * accumulate, requantize. scratch: NULL, or the path's scratch (see MCU_CONV2D_S8_*). */
void mcu_conv2d_s8(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch);

#endif
