#ifndef MCU_QUANTIZE_LINEAR_H
#define MCU_QUANTIZE_LINEAR_H
#include "mcu_rt.h"

/* The tensor viewed as [outer, channels, inner]. Scale and zero point element of x[o][c][i]:
 * o * q_outer + (c / block) * q_channel + i * q_inner (per tensor: all strides 0; per axis: q_channel 1;
 * blocked: block = block_size). dtype (MCU_DT_INT8/UINT8/INT16/UINT16) is y's and the zero point's type;
 * zero_point may be NULL (zero). */
typedef struct {
    int32_t outer, channels, inner, block;
    int32_t q_outer, q_channel, q_inner, dtype;
} mcu_quantize_linear_params;

/** QuantizeLinear float32 -> 8/16-bit integer, bit-exact with onnxruntime. */
void mcu_quantize_linear(const mcu_quantize_linear_params *p, const float *x, const float *scale,
                         const void *zero_point, void *y);

#endif
