#include "quantize_linear.h"

/* onnxruntime MLAS (quantize.cpp): x / scale (a true division), clamp in float to [qmin - zp, qmax - zp] with NaN
 * going to the minimum, round half to even, add the zero point. */
void mcu_quantize_linear(const mcu_quantize_linear_params *p, const float *x, void *y)
{
    const int32_t qmin = p->is_signed ? -128 : 0;
    const int32_t qmax = p->is_signed ? 127 : 255;
    int32_t o, c, i;
    size_t at = 0;
    for (o = 0; o < p->outer; ++o) {
        for (c = 0; c < p->channels; ++c) {
            const float scale = p->scale[c];
            const int32_t zp = p->zero_point[c];
            const float lo = (float)(qmin - zp), hi = (float)(qmax - zp);
            for (i = 0; i < p->inner; ++i, ++at) {
                const int32_t q = mcu_round_even(mcu_clampf(x[at] / scale, lo, hi)) + zp;
                if (p->is_signed) {
                    ((int8_t *)y)[at] = (int8_t)q;
                } else {
                    ((uint8_t *)y)[at] = (uint8_t)q;
                }
            }
        }
    }
}
