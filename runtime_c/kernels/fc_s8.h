#ifndef MCU_FC_S8_H
#define MCU_FC_S8_H
#include "mcu_rt.h"

/* Outputs are computed in blocks of MCU_FC_S8_BLOCK; the compiler packs the weights for that order. */
#define MCU_FC_S8_BLOCK 4

typedef struct {
    int32_t rows, in_features, out_features;
    /* packed by mcucomp/ops/fc_s8.py: per block of 4 outputs, for every 4 features the 4 outputs' 4 weights
     * (16 bytes), then the block's 4 feature tails (in % 4 weights each); the last out % 4 outputs row by row */
    const int8_t *w;
    const int32_t *bias; /* folded at compile time: bias[o] - x_zp sum_k w[o][k] + in x_zp w_zp[o] */
    const int32_t *w_zp; /* per output feature, or NULL for all zero: then acc -= w_zp[o] sum_k x[r][k] */
    mcu_requant rq;
    int32_t rq_plain; /* rq is float mode without div, every scale finite: mcu_requant_plain applies (compile time) */
} mcu_fc_s8_params;

/** int8 fully connected: y[r][o] = requant(bias[o] + sum_k (x[r][k]-x_zp)(w[o][k]-w_zp[o])) (x_zp, bias in p->bias). */
void mcu_fc_s8(const mcu_fc_s8_params *p, const int8_t *x, int8_t *y);

#endif
