#ifndef MCU_GEMM_F32_MATVEC_H
#define MCU_GEMM_F32_MATVEC_H
#include "gemm_f32_packed.h"

/* gemm_f32's matvec path (mcucomp/ops/gemm_f32.py PATHS). */

/* The generated C names a call's params type after its function. */
typedef mcu_gemm_f32_packed_params mcu_gemm_f32_matvec_params;

/** Fully connected over a constant packed B, row by row of A (one row: a matrix-vector product); c may be NULL. */
void mcu_gemm_f32_matvec(const mcu_gemm_f32_packed_params *p, const float *a, const float *c, float *y);

#endif
