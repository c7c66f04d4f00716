#include "causal_conv_f32.h"
#include "mcu_math.h"
#include <math.h>

/* Position i of one channel's [past state, x] sequence (k - 1 state values, then length inputs). */
static float mcu_causal_conv_f32_at(const float *xc, const float *pc, int32_t k, int32_t i)
{
    if (i >= k - 1) {
        return xc[i - (k - 1)];
    }
    return pc ? pc[i] : 0.0f;
}

/* Each output accumulates its k taps from zero with MCU_F32_MAC, then adds the bias (as conv2d_f32). */
void mcu_causal_conv_f32(const mcu_causal_conv_f32_params *p, const float *x, const float *w, const float *bias,
                         const float *past, float *y, float *present)
{
    const int32_t k = p->k, state = p->k - 1;
    int32_t b, c, t, j;
    for (b = 0; b < p->batch; ++b) {
        for (c = 0; c < p->channels; ++c) {
            const size_t row = (size_t)b * p->channels + c;
            const float *xc = x + row * p->length;
            const float *pc = past ? past + row * state : NULL;
            const float *wc = w + (size_t)c * k;
            for (t = 0; t < p->length; ++t) {
                float acc = 0.0f;
                for (j = 0; j < k; ++j) {
                    acc = MCU_F32_MAC(acc, wc[j], mcu_causal_conv_f32_at(xc, pc, k, t + j));
                }
                if (bias) {
                    acc += bias[c];
                }
                y[row * p->length + t] = p->silu ? acc * mcu_sigmoidf(acc) : acc;
            }
            for (j = 0; present && j < state; ++j) {
                present[row * state + j] = mcu_causal_conv_f32_at(xc, pc, k, p->length + j);
            }
        }
    }
}
