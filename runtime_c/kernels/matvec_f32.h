#ifndef MCU_MATVEC_F32_H
#define MCU_MATVEC_F32_H
#include "mcu_rt.h"

/* Row blocks of the packed float matrices (mcucomp/ops/_gemm_f32/packing.py pack_rows writes this order): every
 * MCU_MATVEC_F32_BLOCK rows as [cols][BLOCK], then, when rows % BLOCK >= MCU_MATVEC_F32_HALF, HALF rows as
 * [cols][HALF], then the last rows % HALF rows row by row. */
#define MCU_MATVEC_F32_BLOCK 8
#define MCU_MATVEC_F32_HALF 4

/* Four or eight accumulators named p0, p1, ... take MCU_F32_MAC of consecutive weights w[0], w[1], ... times v. */
#define MCU_MATVEC_F32_MAC4(p, w, v)                                                                              \
    (p##0 = MCU_F32_MAC(p##0, (w)[0], v), p##1 = MCU_F32_MAC(p##1, (w)[1], v),                                     \
     p##2 = MCU_F32_MAC(p##2, (w)[2], v), p##3 = MCU_F32_MAC(p##3, (w)[3], v))
#define MCU_MATVEC_F32_MAC8(p, w, v)                                                                              \
    (MCU_MATVEC_F32_MAC4(p, w, v), p##4 = MCU_F32_MAC(p##4, (w)[4], v), p##5 = MCU_F32_MAC(p##5, (w)[5], v),      \
     p##6 = MCU_F32_MAC(p##6, (w)[6], v), p##7 = MCU_F32_MAC(p##7, (w)[7], v))
/* Accumulators p0 .. p3 (p0 .. p7) copied to or from y[0 .. 3] (y[0 .. 7]). */
#define MCU_MATVEC_F32_PUT4(y, p) ((y)[0] = p##0, (y)[1] = p##1, (y)[2] = p##2, (y)[3] = p##3)
#define MCU_MATVEC_F32_PUT8(y, p)                                                                                 \
    (MCU_MATVEC_F32_PUT4(y, p), (y)[4] = p##4, (y)[5] = p##5, (y)[6] = p##6, (y)[7] = p##7)
#define MCU_MATVEC_F32_GET4(y, p) (p##0 = (y)[0], p##1 = (y)[1], p##2 = (y)[2], p##3 = (y)[3])
#define MCU_MATVEC_F32_GET8(y, p)                                                                                 \
    (MCU_MATVEC_F32_GET4(y, p), p##4 = (y)[4], p##5 = (y)[5], p##6 = (y)[6], p##7 = (y)[7])

/** y[j] = init[j] (0.0 when init is NULL) then MCU_F32_MAC of w[j][k] * x[k] for k = 0..cols-1 in that order, for
 * the `rows` rows of a packed matrix; y may be init. */
void mcu_matvec_f32(const float *w, int32_t rows, int32_t cols, const float *x, const float *init, float *y);

#endif
