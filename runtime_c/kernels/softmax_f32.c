#include "softmax_f32.h"
#include "mcu_math.h"

/* log(softmax(x)) of one line: exact max m, s = sum of e^(x - m) accumulated sequentially, y = (x - m) - ln s
 * (never the log of a rounded softmax, which would lose tiny probabilities). */
static void mcu_log_softmax_line(const float *x, float *y, int32_t n, int32_t stride)
{
    float max = x[0], sum = 0.0f, log_sum;
    int32_t i;
    for (i = 1; i < n; ++i) {
        max = x[(size_t)i * stride] > max ? x[(size_t)i * stride] : max;
    }
    for (i = 0; i < n; ++i) {
        sum += mcu_expf(x[(size_t)i * stride] - max);
    }
    log_sum = mcu_logf(sum);
    for (i = 0; i < n; ++i) {
        y[(size_t)i * stride] = (x[(size_t)i * stride] - max) - log_sum;
    }
}

/* 1 at the first largest element of the line, 0 elsewhere. */
static void mcu_hardmax_line(const float *x, float *y, int32_t n, int32_t stride)
{
    int32_t i, best = 0;
    for (i = 1; i < n; ++i) {
        best = x[(size_t)i * stride] > x[(size_t)best * stride] ? i : best;
    }
    for (i = 0; i < n; ++i) {
        y[(size_t)i * stride] = i == best ? 1.0f : 0.0f;
    }
}

/* Softmax: onnxruntime MLAS's order, see mcu_softmax_strided. */
void mcu_softmax_f32(const mcu_softmax_f32_params *p, const float *x, float *y)
{
    int32_t o, s;
    for (o = 0; o < p->outer; ++o) {
        for (s = 0; s < p->inner; ++s) {
            const float *xs = x + (size_t)o * p->axis_len * p->inner + s;
            float *ys = y + (size_t)o * p->axis_len * p->inner + s;
            if (p->mode == MCU_LOG_SOFTMAX) {
                mcu_log_softmax_line(xs, ys, p->axis_len, p->inner);
            } else if (p->mode == MCU_HARDMAX) {
                mcu_hardmax_line(xs, ys, p->axis_len, p->inner);
            } else {
                mcu_softmax_strided(xs, ys, p->axis_len, p->inner);
            }
        }
    }
}
