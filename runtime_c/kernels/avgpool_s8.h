#ifndef MCU_AVGPOOL_S8_H
#define MCU_AVGPOOL_S8_H
#include "mcu_rt.h"

#define MCU_AVGPOOL_S8_GLOBAL_INT 0 /* whole-image window: integer sum, one requantization */
#define MCU_AVGPOOL_S8_FLOAT 1      /* DequantizeLinear, float sum / count, QuantizeLinear */

typedef struct {
    mcu_conv_geom g;
    int32_t mode;
    int32_t count_include_pad;
    float x_scale, y_scale;
    int32_t x_zp;
    mcu_requant rq; /* GLOBAL_INT: scale = x_scale / (y_scale * window); FLOAT: zp, qmin, qmax */
} mcu_avgpool_s8_params;

/** Quantized average pooling (NCHW) with onnxruntime's arithmetic for each mode. */
void mcu_avgpool_s8(const mcu_avgpool_s8_params *p, const int8_t *x, int8_t *y);

#endif
