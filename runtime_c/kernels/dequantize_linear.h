#ifndef MCU_DEQUANTIZE_LINEAR_H
#define MCU_DEQUANTIZE_LINEAR_H
#include "mcu_rt.h"

enum { MCU_DQ_INT8 = 0, MCU_DQ_UINT8 = 1, MCU_DQ_INT32 = 2 };

/* The tensor viewed as [outer, channels, inner]; scale and zero_point have `channels` entries (1: per tensor). */
typedef struct {
    int32_t outer, channels, inner, in_type;
    const float *scale;
    const int32_t *zero_point;
} mcu_dequantize_linear_params;

/** DequantizeLinear int8/uint8/int32 -> float32: (float)(q - zp) * scale, as onnxruntime. */
void mcu_dequantize_linear(const mcu_dequantize_linear_params *p, const void *x, float *y);

#endif
