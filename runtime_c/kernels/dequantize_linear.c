#include "dequantize_linear.h"

/* q - zp in int64: no signed overflow for int32 data far from its zero point (where onnxruntime's int32 difference
 * wraps). Narrower types convert from int32, which the FPU does in one instruction. */
void mcu_dequantize_linear(const mcu_dequantize_linear_params *p, const void *x, const float *scale,
                           const void *zero_point, float *y)
{
    int32_t o, c, i;
    int32_t at = 0;
    for (o = 0; o < p->outer; ++o) {
        for (c = 0; c < p->channels; ++c) {
            int32_t q_at = o * p->q_outer + (c / p->block) * p->q_channel;
            for (i = 0; i < p->inner; ++i, ++at, q_at += p->q_inner) {
                const int64_t zp = zero_point ? mcu_get_int(zero_point, p->dtype, q_at) : 0;
                const int64_t d = mcu_get_int(x, p->dtype, at) - zp;
                y[at] = (p->dtype == MCU_DT_INT32 ? (float)d : (float)(int32_t)d) * scale[q_at];
            }
        }
    }
}
