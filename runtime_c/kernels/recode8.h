#ifndef MCU_RECODE8_H
#define MCU_RECODE8_H
#include "mcu_rt.h"

typedef struct {
    int32_t count;
} mcu_recode8_params;

/** y[i] = x[i] XOR 0x80: uint8 codes to int8 codes (value - 128) or back; y may be x. */
void mcu_recode8(const mcu_recode8_params *p, const void *x, void *y);

#endif
