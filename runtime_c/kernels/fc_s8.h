#ifndef MCU_FC_S8_H
#define MCU_FC_S8_H
#include "mcu_rt.h"
#include "mlas_dot.h"

#define MCU_FC_S8_INT 0   /* int32 accumulation, requantization (QGemm, QLinearMatMul, MatMulInteger chains) */
#define MCU_FC_S8_FLOAT 1 /* onnxruntime's float path: DequantizeLinear, MLAS float GEMM, QuantizeLinear */

typedef struct {
    int32_t rows, in_features, out_features;
    int32_t x_zp;
    const int32_t *w_zp; /* per output feature, or NULL for all zero */
    mcu_requant rq;      /* FLOAT: only zp, qmin, qmax */
    int32_t mode;        /* MCU_FC_S8_* */
    /* FLOAT: */
    float x_scale, y_scale;
    const float *wf;     /* dequantized weights [out][in] */
    const float *bf;     /* dequantized bias (a Gemm's C, where the GEMM starts), or NULL */
    int32_t transb;      /* B transposed (Gemm transB = 1): the M=1 kernel's transposed-B order */
    int32_t n_rseg;      /* row segments (MLAS's threads): end row and row count (1: the M=1 kernel) */
    const int32_t *rseg_end, *rseg_rows;
    int32_t n_cseg;      /* column segments: end column and K block */
    const int32_t *cseg_end, *cseg_kblock;
} mcu_fc_s8_params;

/** int8 fully connected: y[r][o] = requant(bias[o] + sum_k (x[r][k]-x_zp)(w[o][k]-w_zp[o])); w is [out][in].
 * FLOAT mode uses wf/bf instead of w/bias (NULL) and scratch (in_features floats); otherwise scratch is NULL. */
void mcu_fc_s8(const mcu_fc_s8_params *p, const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
               void *scratch);

#endif
