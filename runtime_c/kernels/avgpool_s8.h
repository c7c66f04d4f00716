#ifndef MCU_AVGPOOL_S8_H
#define MCU_AVGPOOL_S8_H
#include "mcu_rt.h"

#define MCU_AVGPOOL_S8_GLOBAL_INT 0 /* whole-image window: integer sum, one requantization */
#define MCU_AVGPOOL_S8_FLOAT 1      /* DequantizeLinear, float sum / count, QuantizeLinear */
#define MCU_AVGPOOL_S8_WINDOW_INT 2 /* any window: integer sum, requantized by entry `count` of rq (per_channel) */

#define MCU_AVGPOOL_S8_COUNT_VALID 0  /* divide by the taps inside the input (count_include_pad = 0) */
#define MCU_AVGPOOL_S8_COUNT_KERNEL 1 /* by the kernel size (onnxruntime's QLinearAveragePool) */
#define MCU_AVGPOOL_S8_COUNT_PADDED 2 /* by the taps inside the padded input (its float AveragePool, ceil_mode) */

typedef struct {
    mcu_conv_geom g;
    int32_t channels_last; /* 0: x and y are N, C, H, W; 1: N, H, W, C */
    int32_t mode;
    int32_t count_mode;   /* MCU_AVGPOOL_S8_COUNT_* */
    int32_t pad_b, pad_r; /* bottom and right pads, for COUNT_PADDED */
    float x_scale, y_scale;
    int32_t x_zp;
    mcu_requant rq; /* GLOBAL_INT: scale = x_scale / (y_scale * window); WINDOW_INT: entry k = x_scale /
                       (y_scale * k) for the divisor count k; FLOAT: zp, qmin, qmax */
} mcu_avgpool_s8_params;

/** Quantized average pooling (NCHW or NHWC) with onnxruntime's arithmetic for each mode. */
void mcu_avgpool_s8(const mcu_avgpool_s8_params *p, const int8_t *x, int8_t *y);

#endif
