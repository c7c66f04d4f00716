#ifndef MCU_CONV2D_S8_GEMM_V6M_H
#define MCU_CONV2D_S8_GEMM_V6M_H
#include "conv2d_s8.h"

/* The GEMM paths' fixed-mode requantizing block and fused GEMM on ARMv6-M, in assembly (conv2d_s8_gemm_v6m.c): one
 * file, so a model whose layers take several GEMM paths links them once. Elsewhere the file compiles to nothing. */

#if defined(__arm__) && !defined(__ARM_FP) && defined(__GNUC__) && defined(__thumb__) && !defined(__thumb2__)
/* What mcu_conv2d_s8_gemm_v6m reads (offsets in its assembly). */
typedef struct {
    const int8_t *c0, *c1;   /* 0, 4: the two pixels' columns (equal for a lone pixel) */
    int32_t k;               /* 8 */
    const int8_t *w;         /* 12: weight rows of k bytes */
    const int32_t *kbias;    /* 16 */
    int32_t c_out;           /* 20 */
    int8_t *y0, *y1;         /* 24, 28 */
    const mcu_requant *rq;   /* 32 */
    const int32_t *rqt;      /* 36: the requantization table (the _t variants), or NULL */
} mcu_conv2d_s8_gemm_v6m_args;

/** mcu_conv2d_s8_store2x2 in fixed mode (double rounding), qmin <= zp <= qmax: the four outputs of channels oc
 * (acc[0], acc[1]) and oc1 (acc[2], acc[3]) to y0[oc], y1[oc], y0[oc1], y1[oc1]. */
void mcu_conv2d_s8_store2x2_fixed(const mcu_requant *rq, const int32_t *acc, int32_t oc, int32_t oc1, int8_t *y0,
                                  int8_t *y1);
/** The fused GEMM of one pixel pair (fixed mode, no weight zero points, qmin <= zp <= qmax). */
void mcu_conv2d_s8_gemm_v6m(const mcu_conv2d_s8_gemm_v6m_args *a);
/** mcu_conv2d_s8_gemm_v6m for a lone pixel (c0 == c1, y0 == y1). */
void mcu_conv2d_s8_gemm1_v6m(const mcu_conv2d_s8_gemm_v6m_args *a);
/** mcu_conv2d_s8_gemm_v6m with the requantization table a->rqt. */
void mcu_conv2d_s8_gemm_t_v6m(const mcu_conv2d_s8_gemm_v6m_args *a);
/** mcu_conv2d_s8_gemm1_v6m with the requantization table a->rqt. */
void mcu_conv2d_s8_gemm1_t_v6m(const mcu_conv2d_s8_gemm_v6m_args *a);
#endif

#endif
