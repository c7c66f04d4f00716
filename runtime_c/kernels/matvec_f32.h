#ifndef MCU_MATVEC_F32_H
#define MCU_MATVEC_F32_H
#include "mcu_rt.h"

/* Row blocks of the packed float matrices (mcucomp/ops/_gemm_f32/packing.py pack_rows writes this order): every
 * MCU_MATVEC_F32_BLOCK rows as [cols][BLOCK], then, when rows % BLOCK >= MCU_MATVEC_F32_HALF, HALF rows as
 * [cols][HALF], then the last rows % HALF rows row by row. */
#define MCU_MATVEC_F32_BLOCK 8
#define MCU_MATVEC_F32_HALF 4

/** y[j] = init[j] (0.0 when init is NULL) then MCU_F32_MAC of w[j][k] * x[k] for k = 0..cols-1 in that order, for
 * the `rows` rows of a packed matrix; y may be init. */
void mcu_matvec_f32(const float *w, int32_t rows, int32_t cols, const float *x, const float *init, float *y);

#endif
