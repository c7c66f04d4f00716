#include "softmax_s8.h"
#include <float.h>
#include "mcu_math.h"

/* QLinearSoftmax on one row: e_k = table[x_k - max + 255] (the table is built by the compiler exactly as
 * onnxruntime builds it), sum in order, then each code = round(e_k * y_mult / sum) + zp saturated at the top. */
static void softmax_s8_qlinear(const mcu_softmax_s8_params *p, const int8_t *x, int8_t *y, size_t base)
{
    const float *e = p->table + 255;
    const int32_t zp_off = p->y_zp + p->offset, cap = p->top - zp_off + 1;
    int32_t k, xmax = x[base];
    float sum = 0.0f;
    for (k = 1; k < p->axis_len; ++k) {
        const int32_t v = x[base + (size_t)k * p->inner];
        xmax = v > xmax ? v : xmax;
    }
    for (k = 0; k < p->axis_len; ++k) {
        sum = sum + e[x[base + (size_t)k * p->inner] - xmax];
    }
    for (k = 0; k < p->axis_len; ++k) {
        const float t = e[x[base + (size_t)k * p->inner] - xmax] * p->y_mult;
        int32_t code = p->inf_code;
        if (t <= FLT_MAX) {
            /* the quotient is >= 0; past top - zp the code saturates (rounding is monotonic, so the clamp of
             * onnxruntime's order, before rounding, may come after it) */
            const int32_t q = mcu_quantize_float(t / sum, 0, cap, 0) + zp_off;
            code = q > p->top ? p->top : q;
        }
        y[base + (size_t)k * p->inner] = (int8_t)(code - p->offset);
    }
}

void mcu_softmax_s8(const mcu_softmax_s8_params *p, const int8_t *x, int8_t *y, void *scratch)
{
    float *row = (float *)scratch;
    int32_t o, i, k;
    for (o = 0; o < p->outer; ++o) {
        for (i = 0; i < p->inner; ++i) {
            const size_t base = (size_t)o * p->axis_len * p->inner + i;
            if (p->mode == MCU_SOFTMAX_S8_QLINEAR) {
                softmax_s8_qlinear(p, x, y, base);
                continue;
            }
            for (k = 0; k < p->axis_len; ++k) {
                row[k] = (float)((int32_t)x[base + (size_t)k * p->inner] - p->x_zp) * p->x_scale;
            }
            mcu_softmax_strided(row, row, p->axis_len, 1);
            for (k = 0; k < p->axis_len; ++k) {
                y[base + (size_t)k * p->inner] =
                    (int8_t)mcu_quantize_float(row[k] / p->y_scale, p->qmin - p->y_zp, p->qmax - p->y_zp, p->y_zp);
            }
        }
    }
}
