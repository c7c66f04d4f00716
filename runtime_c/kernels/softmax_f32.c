#include "softmax_f32.h"
#include "mcu_math.h"

/* onnxruntime MLAS's order, see mcu_softmax_strided. */
void mcu_softmax_f32(const mcu_softmax_f32_params *p, const float *x, float *y)
{
    int32_t o, s;
    for (o = 0; o < p->outer; ++o) {
        for (s = 0; s < p->inner; ++s) {
            const float *xs = x + (size_t)o * p->axis_len * p->inner + s;
            float *ys = y + (size_t)o * p->axis_len * p->inner + s;
            mcu_softmax_strided(xs, ys, p->axis_len, p->inner);
        }
    }
}
