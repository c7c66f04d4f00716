#include "gemm_f32_blocked.h"
#include <math.h>

/* Rows i and i + 1 of A (x0, x1) against every column of the packed B: 2 x 8 blocks, then a 2 x 4 block, then the
 * last columns one at a time (both rows sharing each weight load). */
static void mcu_gemm_f32_row_pair(const mcu_gemm_f32_packed_params *p, const float *x0, const float *x1, float *y0,
                                  float *y1)
{
    const float *w = p->w;
    const int32_t n = p->n, k = p->k;
    int32_t j = 0, t;
    for (; j + MCU_MATVEC_F32_BLOCK <= n; j += MCU_MATVEC_F32_BLOCK) {
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, a4 = 0.0f, a5 = 0.0f, a6 = 0.0f, a7 = 0.0f;
        float b0 = 0.0f, b1 = 0.0f, b2 = 0.0f, b3 = 0.0f, b4 = 0.0f, b5 = 0.0f, b6 = 0.0f, b7 = 0.0f;
        for (t = 0; t < k; ++t) {
            MCU_MATVEC_F32_MAC8(a, w, x0[t]);
            MCU_MATVEC_F32_MAC8(b, w, x1[t]);
            w += MCU_MATVEC_F32_BLOCK;
        }
        MCU_MATVEC_F32_PUT8(y0 + j, a);
        MCU_MATVEC_F32_PUT8(y1 + j, b);
    }
    if (n - j >= MCU_MATVEC_F32_HALF) {
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, b0 = 0.0f, b1 = 0.0f, b2 = 0.0f, b3 = 0.0f;
        for (t = 0; t < k; ++t) {
            MCU_MATVEC_F32_MAC4(a, w, x0[t]);
            MCU_MATVEC_F32_MAC4(b, w, x1[t]);
            w += MCU_MATVEC_F32_HALF;
        }
        MCU_MATVEC_F32_PUT4(y0 + j, a);
        MCU_MATVEC_F32_PUT4(y1 + j, b);
        j += MCU_MATVEC_F32_HALF;
    }
    for (; j < n; ++j) {
        float a0 = 0.0f, b0 = 0.0f;
        for (t = 0; t < k; ++t) {
            a0 = MCU_F32_MAC(a0, w[t], x0[t]);
            b0 = MCU_F32_MAC(b0, w[t], x1[t]);
        }
        y0[j] = a0, y1[j] = b0;
        w += k;
    }
}

/* Each output: from 0.0 over k in order, then alpha, then beta * C; a lone last row takes the matrix-vector loop. */
void mcu_gemm_f32_blocked(const mcu_gemm_f32_packed_params *p, const float *a, const float *c, float *y)
{
    int32_t i = 0;
    for (; i + 2 <= p->rows; i += 2) {
        float *y0 = y + (size_t)i * p->n;
        mcu_gemm_f32_row_pair(p, a + (size_t)i * p->k, a + (size_t)(i + 1) * p->k, y0, y0 + p->n);
        mcu_gemm_f32_finish(p, c, i, y0);
        mcu_gemm_f32_finish(p, c, i + 1, y0 + p->n);
    }
    if (i < p->rows) {
        mcu_matvec_f32(p->w, p->n, p->k, a + (size_t)i * p->k, NULL, y + (size_t)i * p->n);
        mcu_gemm_f32_finish(p, c, i, y + (size_t)i * p->n);
    }
}
