#include "gemm_f32.h"
#include <math.h>

/* Each output accumulates from zero in k order with MCU_F32_MAC, is then scaled by alpha (when not 1) and
 * gets beta * C added last: the order of onnxruntime's SGEMM for K up to its block depth. */
void mcu_gemm_f32(const mcu_gemm_f32_params *p, const float *a, const float *b, const float *c, float *y)
{
    int32_t idx[MCU_MAX_RANK] = {0};
    int32_t ia = 0, ib = 0, batches = 1, t, i, j, kk, d;
    for (d = 0; d < p->batch.rank; ++d) {
        batches *= p->batch.dims[d];
    }
    for (t = 0; t < batches; ++t) {
        const float *ab = a + ia;
        const float *bb = b + ib;
        float *yb = y + (size_t)t * p->m * p->n;
        for (i = 0; i < p->m; ++i) {
            for (j = 0; j < p->n; ++j) {
                float acc = 0.0f;
                for (kk = 0; kk < p->k; ++kk) {
                    acc = MCU_F32_MAC(acc, ab[i * p->a_rs + kk * p->a_ks], bb[kk * p->b_ks + j * p->b_cs]);
                }
                if (p->alpha != 1.0f) {
                    acc *= p->alpha;
                }
                if (c != NULL) {
                    acc += p->beta * c[i * p->c_rs + j * p->c_cs];
                }
                yb[i * p->n + j] = acc;
            }
        }
        mcu_bcast_next(&p->batch, idx, &ia, &ib);
    }
}
