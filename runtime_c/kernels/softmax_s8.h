#ifndef MCU_SOFTMAX_S8_H
#define MCU_SOFTMAX_S8_H
#include "mcu_rt.h"

typedef struct {
    int32_t outer, axis_len, inner;
    float x_scale, y_scale;
    int32_t x_zp, y_zp, qmin, qmax;
} mcu_softmax_s8_params;

/** DequantizeLinear → Softmax (float, onnxruntime's MLAS sequence) → QuantizeLinear; scratch: axis_len floats. */
void mcu_softmax_s8(const mcu_softmax_s8_params *p, const int8_t *x, int8_t *y, void *scratch);

#endif
