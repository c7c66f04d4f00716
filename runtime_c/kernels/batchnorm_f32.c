#include "batchnorm_f32.h"
#include <math.h>

/* The ONNX reference's order of operations, element by element. */
void mcu_batchnorm_f32(const mcu_batchnorm_f32_params *p, const float *x, const float *scale, const float *bias,
                       const float *mean, const float *var, float *y)
{
    int32_t b, ch, i;
    for (b = 0; b < p->n; ++b) {
        for (ch = 0; ch < p->c; ++ch) {
            const float sd = sqrtf(var[ch] + p->epsilon);
            const size_t base = ((size_t)b * p->c + ch) * p->inner;
            for (i = 0; i < p->inner; ++i) {
                y[base + i] = (x[base + i] - mean[ch]) / sd * scale[ch] + bias[ch];
            }
        }
    }
}
