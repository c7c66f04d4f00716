#ifndef MCU_DYNAMIC_QUANTIZE_LINEAR_H
#define MCU_DYNAMIC_QUANTIZE_LINEAR_H
#include "mcu_rt.h"

typedef struct {
    int32_t count;
} mcu_dynamic_quantize_linear_params;

/** DynamicQuantizeLinear float32 -> uint8 y, float32 scalar y_scale, uint8 scalar y_zero_point (ONNX spec). */
void mcu_dynamic_quantize_linear(const mcu_dynamic_quantize_linear_params *p, const float *x, uint8_t *y,
                                 float *y_scale, uint8_t *y_zero_point);

#endif
