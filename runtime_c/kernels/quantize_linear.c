#include "quantize_linear.h"

/* onnxruntime MLAS (quantize.cpp): x / scale (a true division), clamp in float to [qmin - zp, qmax - zp] with NaN
 * going to the minimum, round half to even, add the zero point. Clamping first keeps |v| < 2^22 for
 * mcu_round_even, and since the bounds are integers it equals ONNX's round, add, then saturate. */
void mcu_quantize_linear(const mcu_quantize_linear_params *p, const float *x, const float *scale,
                         const void *zero_point, void *y)
{
    int32_t qmin, qmax, o, c, i;
    int32_t at = 0;
    switch (p->dtype) {
    case MCU_DT_INT8:
        qmin = -128;
        qmax = 127;
        break;
    case MCU_DT_INT16:
        qmin = -32768;
        qmax = 32767;
        break;
    case MCU_DT_UINT16:
        qmin = 0;
        qmax = 65535;
        break;
    default:
        qmin = 0;
        qmax = 255;
        break;
    }
    for (o = 0; o < p->outer; ++o) {
        for (c = 0; c < p->channels; ++c) {
            int32_t q_at = o * p->q_outer + (c / p->block) * p->q_channel;
            for (i = 0; i < p->inner; ++i, ++at, q_at += p->q_inner) {
                const int32_t zp = zero_point ? (int32_t)mcu_get_int(zero_point, p->dtype, q_at) : 0;
                const float lo = (float)(qmin - zp), hi = (float)(qmax - zp);
                const int32_t q = mcu_round_even(mcu_clampf(x[at] / scale[q_at], lo, hi)) + zp;
                mcu_set_int(y, p->dtype, at, (uint64_t)(int64_t)q);
            }
        }
    }
}
