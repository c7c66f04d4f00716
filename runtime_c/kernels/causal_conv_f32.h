#ifndef MCU_CAUSAL_CONV_F32_H
#define MCU_CAUSAL_CONV_F32_H
#include "mcu_rt.h"

/* x: [batch, channels, length]; w: [channels, 1, k]; past and present: [batch, channels, k - 1].
 * silu: 1 to apply the fused SiLU (Swish) activation. */
typedef struct {
    int32_t batch, channels, length, k;
    int32_t silu;
} mcu_causal_conv_f32_params;

/** ONNX CausalConvWithState: a depthwise 1-D conv over [past state, x] (past NULL: zeros), one output per x
 * position; present receives the last k - 1 positions of [past state, x] (NULL: not wanted). bias may be NULL. */
void mcu_causal_conv_f32(const mcu_causal_conv_f32_params *p, const float *x, const float *w, const float *bias,
                         const float *past, float *y, float *present);

#endif
