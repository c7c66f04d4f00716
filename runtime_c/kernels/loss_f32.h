#ifndef MCU_LOSS_F32_H
#define MCU_LOSS_F32_H
#include "mcu_rt.h"

/* How the per-element losses are reduced. */
#define MCU_LOSS_NONE 0
#define MCU_LOSS_SUM 1
#define MCU_LOSS_MEAN 2

/* Scores viewed as [n, c, d] (classes along the middle dim), targets as [n, d]. */
typedef struct {
    int32_t n, c, d;
    int32_t log_softmax; /* 1: SoftmaxCrossEntropyLoss (log-softmax first), 0: NegativeLogLikelihoodLoss */
    int32_t reduction;
    int32_t has_ignore;
    int64_t ignore_index;
} mcu_loss_f32_params;

/** loss = -w[t] * s[n, t, d] per element, t = target[n, d] clamped to [0, c) (0 and weight 0 where t equals
 * ignore_index), then reduced: sum, or mean = sum / sum of weights (sums accumulated in double). s is x, or
 * log_softmax(x) along c, written to log_prob when not NULL, else one [c, d] slice at a time to scratch
 * (c * d floats). weight may be NULL (all 1). */
void mcu_loss_f32(const mcu_loss_f32_params *p, const float *x, const int64_t *target, const float *weight,
                  float *loss, float *log_prob, void *scratch);

#endif
