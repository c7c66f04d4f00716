#ifndef MCU_DEQUANTIZE_LINEAR_H
#define MCU_DEQUANTIZE_LINEAR_H
#include "mcu_rt.h"

/* The tensor viewed as [outer, channels, inner]. Scale and zero point element of x[o][c][i]:
 * o * q_outer + (c / block) * q_channel + i * q_inner (per tensor: all strides 0; per axis: q_channel 1;
 * blocked: block = block_size). dtype (MCU_DT_INT8/UINT8/INT16/UINT16/INT32) is x's and the zero point's type;
 * zero_point may be NULL (zero). */
typedef struct {
    int32_t outer, channels, inner, block;
    int32_t q_outer, q_channel, q_inner, dtype;
} mcu_dequantize_linear_params;

/** DequantizeLinear integer -> float32: (float)(q - zp) * scale, as onnxruntime. */
void mcu_dequantize_linear(const mcu_dequantize_linear_params *p, const void *x, const float *scale,
                           const void *zero_point, float *y);

#endif
