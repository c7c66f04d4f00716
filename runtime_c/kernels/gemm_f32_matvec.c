#include "gemm_f32_matvec.h"

/* Each output: from 0.0 over k in order (mcu_matvec_f32's row blocks), then alpha, then beta * C. */
void mcu_gemm_f32_matvec(const mcu_gemm_f32_packed_params *p, const float *a, const float *c, float *y)
{
    int32_t i;
    for (i = 0; i < p->rows; ++i) {
        float *yr = y + (size_t)i * p->n;
        mcu_matvec_f32(p->w, p->n, p->k, a + (size_t)i * p->k, NULL, yr);
        mcu_gemm_f32_finish(p, c, i, yr);
    }
}
