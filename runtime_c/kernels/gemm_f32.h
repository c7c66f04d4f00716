#ifndef MCU_GEMM_F32_H
#define MCU_GEMM_F32_H
#include "mcu_rt.h"

/* Y[b] = alpha * op(A[b]) x op(B[b]) + beta * C for every batch index b. Transposes are strides: element (i, k) of
 * op(A) is a[i * a_rs + k * a_ks], element (k, j) of op(B) is b[k * b_ks + j * b_cs]; C is read at
 * c[i * c_rs + j * c_cs] (0 strides broadcast). `batch` walks the broadcast batch dims with a_strides/b_strides in
 * elements (rank 0: one matrix product). */
typedef struct {
    mcu_bcast batch;
    int32_t m, n, k;
    int32_t a_rs, a_ks, b_ks, b_cs, c_rs, c_cs;
    float alpha, beta;
} mcu_gemm_f32_params;

/** Float matrix product (Gemm and batched MatMul); c may be NULL. */
void mcu_gemm_f32(const mcu_gemm_f32_params *p, const float *a, const float *b, const float *c, float *y);

#endif
