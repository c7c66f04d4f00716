#ifndef MCU_MLAS_DOT_H
#define MCU_MLAS_DOT_H
#include "mcu_rt.h"

/* One output of an MLAS float GEMM (C = A B with A's row w and B's column x, both K long), in the summation order
 * of the kernel onnxruntime (x86-64) runs it with; `c` is the value C holds before (0, or the bias of a Gemm). The
 * int8 kernels that reproduce onnxruntime's float paths (conv2d_dqf_s8, fc_s8) share these. */

#define MCU_MLAS_FMA 0         /* SGEMM kernel: per K block an FMA chain from 0, each block added to C */
#define MCU_MLAS_M1 1          /* MlasSgemmKernelM1Avx (one row of A): products of 4 taps summed, added to C */
#define MCU_MLAS_M1_TRANSB 2   /* MlasSgemmKernelM1TransposeBAvx: 8 lanes over K, reduced by a tree per column */

/** SGEMM kernel order with K blocks of `kblock`. */
float mcu_mlas_dot_fma(const float *w, const float *x, int32_t k, int32_t kblock, float c);

/** M=1 kernel order (separate multiplies and adds; its K blocks are multiples of 4 and do not matter). */
float mcu_mlas_dot_m1(const float *w, const float *x, int32_t k, float c);

/** M=1 transposed-B kernel order for column `pos` of the `count` columns of one kernel call. */
float mcu_mlas_dot_m1_transb(const float *w, const float *x, int32_t k, int32_t pos, int32_t count, float c);

#endif
