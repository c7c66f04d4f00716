#include "dynamic_quantize_linear.h"

/* The ONNX spec: the range [min(x), max(x)] widened to include 0, scale = (max - min) / 255, zero point =
 * round_half_even(clamp(0 - min / scale, 0, 255)), y = saturate(round_half_even(x / scale) + zero point). An empty
 * range (x all zero) gets scale 1 as in onnxruntime, where the spec would divide 0 by 0 (onnx.reference: 1 / 255).
 * NaN elements are skipped by min/max and quantize to 0, like QuantizeLinear's clamp. */
void mcu_dynamic_quantize_linear(const mcu_dynamic_quantize_linear_params *p, const float *x, uint8_t *y,
                                 float *y_scale, uint8_t *y_zero_point)
{
    float lo = 0.0f, hi = 0.0f, scale, lo_q, hi_q;
    int32_t i, zp;
    for (i = 0; i < p->count; ++i) {
        if (x[i] < lo) {
            lo = x[i];
        }
        if (x[i] > hi) {
            hi = x[i];
        }
    }
    scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
    zp = mcu_round_even(mcu_clampf(0.0f - lo / scale, 0.0f, 255.0f));
    lo_q = (float)-zp;
    hi_q = (float)(255 - zp);
    for (i = 0; i < p->count; ++i) {
        y[i] = (uint8_t)(mcu_round_even(mcu_clampf(x[i] / scale, lo_q, hi_q)) + zp);
    }
    *y_scale = scale;
    *y_zero_point = (uint8_t)zp;
}
