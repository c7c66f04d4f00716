#ifndef MCU_ISINF_ISNAN_F32_H
#define MCU_ISINF_ISNAN_F32_H
#include "mcu_rt.h"

/* nan = 1: IsNaN; else IsInf detecting +inf when pos and -inf when neg. */
typedef struct {
    int32_t count;
    int32_t nan, pos, neg;
} mcu_isinf_isnan_f32_params;

/** y = 1 where x is NaN (or the selected infinity), else 0. */
void mcu_isinf_isnan_f32(const mcu_isinf_isnan_f32_params *p, const float *x, uint8_t *y);

#endif
