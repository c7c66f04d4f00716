#ifndef MCU_POW_H
#define MCU_POW_H
#include "mcu_rt.h"

/* base_dtype: MCU_DT_FLOAT, MCU_DT_INT32 or MCU_DT_INT64 (also y's type); exp_dtype: MCU_DT_* of the exponent, any
 * numeric type; count output elements; bc walks x and e into y. */
typedef struct {
    int32_t base_dtype;
    int32_t exp_dtype;
    int32_t count;
    mcu_bcast bc;
} mcu_pow_params;

/** y = x^e with numpy broadcasting. Float bases: mcu_powf. Integer bases: exact wrapping powers for integral e,
 *  1/x^|e| truncated for negative integral e (0 for x = 0), truncated powf for fractional e. */
void mcu_pow(const mcu_pow_params *p, const void *x, const void *e, void *y);

#endif
