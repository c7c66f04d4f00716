#include "dequantize_linear.h"

void mcu_dequantize_linear(const mcu_dequantize_linear_params *p, const void *x, float *y)
{
    int32_t o, c, i;
    size_t at = 0;
    for (o = 0; o < p->outer; ++o) {
        for (c = 0; c < p->channels; ++c) {
            const float scale = p->scale[c];
            const int32_t zp = p->zero_point[c];
            for (i = 0; i < p->inner; ++i, ++at) {
                int32_t q;
                if (p->in_type == MCU_DQ_INT8) {
                    q = ((const int8_t *)x)[at];
                } else if (p->in_type == MCU_DQ_UINT8) {
                    q = ((const uint8_t *)x)[at];
                } else {
                    q = ((const int32_t *)x)[at];
                }
                y[at] = (float)(q - zp) * scale;
            }
        }
    }
}
