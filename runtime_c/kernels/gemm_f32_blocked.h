#ifndef MCU_GEMM_F32_BLOCKED_H
#define MCU_GEMM_F32_BLOCKED_H
#include "gemm_f32_packed.h"

/* gemm_f32's blocked path (mcucomp/ops/gemm_f32.py PATHS). */

/* The generated C names a call's params type after its function. */
typedef mcu_gemm_f32_packed_params mcu_gemm_f32_blocked_params;

/** Matrix product over a constant packed B, two rows of A at a time (2 x 8 output blocks); c may be NULL. */
void mcu_gemm_f32_blocked(const mcu_gemm_f32_packed_params *p, const float *a, const float *c, float *y);

#endif
