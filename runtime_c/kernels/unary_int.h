#ifndef MCU_UNARY_INT_H
#define MCU_UNARY_INT_H
#include "mcu_rt.h"

/* Op codes: mcucomp/ops/unary_int.py CODES. */
enum { MCU_UNARY_INT_ABS = 0, MCU_UNARY_INT_NEG = 1, MCU_UNARY_INT_SIGN = 2, MCU_UNARY_INT_RELU = 3,
       MCU_UNARY_INT_NOT = 4 };

/* dtype: MCU_DT_* of x and y (an integer type, or bool for Not). */
typedef struct {
    int32_t op;
    int32_t dtype;
    int32_t count;
} mcu_unary_int_params;

/** y = f(x) element-wise on integers in wrapping two's-complement arithmetic (in place allowed). */
void mcu_unary_int(const mcu_unary_int_params *p, const void *x, void *y);

#endif
