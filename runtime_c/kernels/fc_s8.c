#include "fc_s8.h"

/* Weights are stored [out][in] by the compiler so every output is one contiguous dot product. */
void mcu_fc_s8(const mcu_fc_s8_params *p, const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y)
{
    int32_t r, o, k;
    for (r = 0; r < p->rows; ++r) {
        const int8_t *xr = x + (size_t)r * p->in_features;
        for (o = 0; o < p->out_features; ++o) {
            const int8_t *wo = w + (size_t)o * p->in_features;
            const int32_t wzp = p->w_zp ? p->w_zp[o] : 0;
            int32_t acc = bias ? bias[o] : 0;
            for (k = 0; k < p->in_features; ++k) {
                acc += ((int32_t)xr[k] - p->x_zp) * ((int32_t)wo[k] - wzp);
            }
            y[(size_t)r * p->out_features + o] = (int8_t)mcu_requant_apply(&p->rq, acc, o);
        }
    }
}
