#include "loss_f32.h"
#include "softmax_f32.h"

void mcu_loss_f32(const mcu_loss_f32_params *p, const float *x, const int64_t *target, const float *weight,
                  float *loss, float *log_prob, void *scratch)
{
    const size_t slice = (size_t)p->c * p->d;
    const mcu_softmax_f32_params lsm = {1, p->c, p->d, MCU_LOG_SOFTMAX};
    double total = 0.0, weights = 0.0;
    int32_t n, d;
    for (n = 0; n < p->n; ++n) {
        const float *s = x + n * slice;
        if (p->log_softmax) {
            float *out = log_prob != NULL ? log_prob + n * slice : (float *)scratch;
            mcu_softmax_f32(&lsm, s, out);
            s = out;
        }
        for (d = 0; d < p->d; ++d) {
            const int64_t t = target[(size_t)n * p->d + d];
            /* Out-of-range targets read the nearest class instead of outside the tensor (the reference clips
             * the weight index the same way). */
            const int32_t c = t < 0 ? 0 : (t >= p->c ? p->c - 1 : (int32_t)t);
            float w = weight != NULL ? weight[c] : 1.0f;
            float l = -s[(size_t)c * p->d + d];
            if (p->has_ignore && t == p->ignore_index) {
                w = 0.0f;
                l = 0.0f;
            } else if (weight != NULL) {
                l = w * l;
            }
            if (p->reduction == MCU_LOSS_NONE) {
                loss[(size_t)n * p->d + d] = l;
            }
            total += l;
            weights += w;
        }
    }
    if (p->reduction == MCU_LOSS_SUM) {
        loss[0] = (float)total;
    } else if (p->reduction == MCU_LOSS_MEAN) {
        loss[0] = (float)total / (float)weights;
    }
}
