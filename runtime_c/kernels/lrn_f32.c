#include "lrn_f32.h"
#include "mcu_math.h"

/* The squares accumulate in float32 in ascending channel order; the power is mcu_powf (same bits on every target). */
void mcu_lrn_f32(const mcu_lrn_f32_params *p, const float *x, float *y)
{
    int32_t b, ch, i, k;
    for (b = 0; b < p->n; ++b) {
        const float *xb = x + (size_t)b * p->c * p->inner;
        float *yb = y + (size_t)b * p->c * p->inner;
        for (ch = 0; ch < p->c; ++ch) {
            const int32_t lo = ch - p->before < 0 ? 0 : ch - p->before;
            const int32_t hi = ch + p->after >= p->c ? p->c - 1 : ch + p->after;
            for (i = 0; i < p->inner; ++i) {
                float sq = 0.0f;
                for (k = lo; k <= hi; ++k) {
                    const float v = xb[(size_t)k * p->inner + i];
                    sq += v * v;
                }
                yb[(size_t)ch * p->inner + i] =
                    xb[(size_t)ch * p->inner + i] / mcu_powf(p->bias + p->alpha_over_size * sq, p->beta);
            }
        }
    }
}
