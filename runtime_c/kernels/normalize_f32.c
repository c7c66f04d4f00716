#include "normalize_f32.h"
#include <math.h>

/* Per group, with sums accumulated in float32 in the inner walk's order. STANDARD and MVN: mean = sum / n and
 * var = (sum of (x - mean)^2) / n (two passes, no cancellation); y = ((x - mean) * inv) * scale + bias; RMS takes
 * mean = 0. Lp: as
 * onnxruntime, the group is first divided by s = max |x| so the norm cannot overflow or underflow (an all-zero group
 * gives zeros; with an infinity or NaN, s = 1), then y = (x / s) / norm(x / s). A walk returns to its start after a
 * full cycle, so the passes reuse idx and off. */
void mcu_normalize_f32(const mcu_normalize_f32_params *p, const float *x, const float *scale, const float *bias,
                       float *y, float *mean, float *inv_std_dev)
{
    int32_t gidx[MCU_MAX_RANK] = {0};
    int32_t goff[MCU_WALK_OPS] = {0};
    int32_t idx[MCU_MAX_RANK] = {0};
    const int32_t groups = mcu_walk_count(&p->outer), n = mcu_walk_count(&p->inner);
    const int32_t centered = p->mode == MCU_NORM_STANDARD || p->mode == MCU_NORM_MVN || p->mode == MCU_NORM_RMS;
    int32_t gi, i, k;
    for (gi = 0; gi < groups; ++gi) {
        int32_t off[MCU_WALK_OPS];
        float sum = 0.0f, center = 0.0f, inv = 1.0f, top = 0.0f, div = 1.0f, norm = 1.0f;
        for (k = 0; k < MCU_WALK_OPS; ++k) {
            off[k] = goff[k];
        }
        if (centered) {
            float sq = 0.0f;
            if (p->mode != MCU_NORM_RMS) { /* RMS: the center stays 0, the variance is the mean square */
                for (i = 0; i < n; ++i) {
                    sum += x[off[0]];
                    mcu_walk_next(&p->inner, idx, off);
                }
                center = sum / (float)n;
            }
            for (i = 0; i < n; ++i) {
                const float d = x[off[0]] - center;
                sq += d * d;
                mcu_walk_next(&p->inner, idx, off);
            }
            inv = p->mode == MCU_NORM_MVN ? 1.0f / (sqrtf(sq / (float)n) + p->epsilon)
                                          : 1.0f / sqrtf(sq / (float)n + p->epsilon);
            if (mean != NULL) {
                mean[gi] = center;
            }
            if (inv_std_dev != NULL) {
                inv_std_dev[gi] = inv;
            }
        } else {
            for (i = 0; i < n; ++i) {
                const float a = fabsf(x[off[0]]);
                if (top == top && !(a <= top)) {
                    top = a; /* a NaN stays */
                }
                mcu_walk_next(&p->inner, idx, off);
            }
            div = top > 0.0f && top - top == 0.0f ? top : 1.0f; /* finite and non-zero */
            for (i = 0; i < n; ++i) {
                const float v = x[off[0]] / div;
                sum += p->mode == MCU_NORM_L1 ? fabsf(v) : v * v;
                mcu_walk_next(&p->inner, idx, off);
            }
            norm = p->mode == MCU_NORM_L2 ? sqrtf(sum) : sum;
        }
        for (i = 0; i < n; ++i) {
            float v = centered ? (x[off[0]] - center) * inv : (top == 0.0f ? 0.0f : x[off[0]] / div / norm);
            if (scale != NULL) {
                v *= scale[off[1]];
            }
            if (bias != NULL) {
                v += bias[off[2]];
            }
            y[off[0]] = v;
            mcu_walk_next(&p->inner, idx, off);
        }
        mcu_walk_next(&p->outer, gidx, goff);
    }
}
