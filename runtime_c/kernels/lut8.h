#ifndef MCU_LUT8_H
#define MCU_LUT8_H
#include "mcu_rt.h"

typedef struct {
    int32_t count;
    const int8_t *table; /* 256 output codes, indexed by the input code's byte (code & 0xff) */
} mcu_lut8_params;

/** y[i] = table[x[i] & 0xff]: an 8-bit function by table lookup; y may be x. */
void mcu_lut8(const mcu_lut8_params *p, const int8_t *x, int8_t *y);

#endif
