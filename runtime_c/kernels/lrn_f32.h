#ifndef MCU_LRN_F32_H
#define MCU_LRN_F32_H
#include "mcu_rt.h"

/* The input viewed as [n, c, inner]. The window of channel ch is [ch - before, ch + after] clipped to [0, c). */
typedef struct {
    int32_t n, c, inner, before, after;
    float alpha_over_size, beta, bias;
} mcu_lrn_f32_params;

/** Local response normalization across channels: y = x / (bias + alpha / size * sum of x^2 in the window)^beta. */
void mcu_lrn_f32(const mcu_lrn_f32_params *p, const float *x, float *y);

#endif
