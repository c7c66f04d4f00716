#ifndef MCU_QUANTIZE_LINEAR_H
#define MCU_QUANTIZE_LINEAR_H
#include "mcu_rt.h"

/* The tensor viewed as [outer, channels, inner]; scale and zero_point have `channels` entries (1: per tensor).
 * is_signed selects int8 (qmin -128) or uint8 (qmin 0) output. */
typedef struct {
    int32_t outer, channels, inner, is_signed;
    const float *scale;
    const int32_t *zero_point;
} mcu_quantize_linear_params;

/** QuantizeLinear float32 -> int8/uint8, bit-exact with onnxruntime. */
void mcu_quantize_linear(const mcu_quantize_linear_params *p, const float *x, void *y);

#endif
