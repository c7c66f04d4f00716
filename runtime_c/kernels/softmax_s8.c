#include "softmax_s8.h"
#include "mcu_math.h"

void mcu_softmax_s8(const mcu_softmax_s8_params *p, const int8_t *x, int8_t *y, void *scratch)
{
    float *row = (float *)scratch;
    int32_t o, i, k;
    for (o = 0; o < p->outer; ++o) {
        for (i = 0; i < p->inner; ++i) {
            const size_t base = (size_t)o * p->axis_len * p->inner + i;
            for (k = 0; k < p->axis_len; ++k) {
                row[k] = (float)((int32_t)x[base + (size_t)k * p->inner] - p->x_zp) * p->x_scale;
            }
            mcu_softmax_strided(row, row, p->axis_len, 1);
            for (k = 0; k < p->axis_len; ++k) {
                const float v = mcu_clampf(row[k] / p->y_scale, (float)(p->qmin - p->y_zp), (float)(p->qmax - p->y_zp));
                y[base + (size_t)k * p->inner] = (int8_t)(mcu_round_even(v) + p->y_zp);
            }
        }
    }
}
