#include "gemm_f32_packed.h"

void mcu_gemm_f32_finish(const mcu_gemm_f32_packed_params *p, const float *c, int32_t i, float *y_row)
{
    int32_t j;
    if (p->alpha != 1.0f) {
        for (j = 0; j < p->n; ++j) {
            y_row[j] *= p->alpha;
        }
    }
    if (c != NULL) {
        for (j = 0; j < p->n; ++j) {
            y_row[j] += p->beta * c[i * p->c_rs + j * p->c_cs];
        }
    }
}
