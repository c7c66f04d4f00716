#include "gemm_f32_packed.h"

/* The params in locals: stores through y_row would otherwise make the compiler reload them every output. beta == 1
 * adds C as it is (1 * c is c exactly). */
void mcu_gemm_f32_finish(const mcu_gemm_f32_packed_params *p, const float *c, int32_t i, float *y_row)
{
    const int32_t n = p->n, c_cs = p->c_cs;
    const float alpha = p->alpha, beta = p->beta;
    int32_t j;
    if (alpha != 1.0f) {
        for (j = 0; j < n; ++j) {
            y_row[j] *= alpha;
        }
    }
    if (c != NULL) {
        const float *cr = c + (size_t)i * p->c_rs;
        if (beta == 1.0f) {
            for (j = 0; j < n; ++j) {
                y_row[j] += cr[j * c_cs];
            }
        } else {
            for (j = 0; j < n; ++j) {
                y_row[j] += beta * cr[j * c_cs];
            }
        }
    }
}
