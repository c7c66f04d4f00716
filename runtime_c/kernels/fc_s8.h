#ifndef MCU_FC_S8_H
#define MCU_FC_S8_H
#include "mcu_rt.h"

typedef struct {
    int32_t rows, in_features, out_features;
    int32_t x_zp;
    const int32_t *w_zp; /* per output feature, or NULL for all zero */
    mcu_requant rq;
} mcu_fc_s8_params;

/** int8 fully connected: y[r][o] = requant(bias[o] + sum_k (x[r][k]-x_zp)(w[o][k]-w_zp[o])); w is [out][in]. */
void mcu_fc_s8(const mcu_fc_s8_params *p, const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y);

#endif
