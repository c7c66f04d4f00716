#ifndef MCU_GEMM_F32_PACKED_H
#define MCU_GEMM_F32_PACKED_H
#include "matvec_f32.h"

/* gemm_f32's paths over a constant B (mcucomp/ops/gemm_f32.py PATHS): Y [rows, n] = alpha * A [rows, k] x B + beta
 * * C, A row-major (a Gemm without transA, or a MatMul's A with its batch dims as rows over a 2-D B). w is op(B)
 * transposed, [n, k], packed by matvec_f32.h's row blocks. C is read at c[i * c_rs + j * c_cs] (0 strides
 * broadcast). */
typedef struct {
    int32_t rows, n, k;
    int32_t c_rs, c_cs;
    float alpha, beta;
    const float *w;
} mcu_gemm_f32_packed_params;

/** Output row i's epilogue, after its dot products: times alpha when alpha != 1, then beta * C added (c may be
 * NULL): mcu_gemm_f32's order. */
void mcu_gemm_f32_finish(const mcu_gemm_f32_packed_params *p, const float *c, int32_t i, float *y_row);

#endif
