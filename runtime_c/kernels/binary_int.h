#ifndef MCU_BINARY_INT_H
#define MCU_BINARY_INT_H
#include "mcu_rt.h"

enum {
    MCU_BINARY_INT_ADD = 0, MCU_BINARY_INT_SUB = 1, MCU_BINARY_INT_MUL = 2, MCU_BINARY_INT_DIV = 3,
    MCU_BINARY_INT_MOD = 4, MCU_BINARY_INT_FMOD = 5, MCU_BINARY_INT_MAX = 6, MCU_BINARY_INT_MIN = 7,
    MCU_BINARY_INT_AND = 8, MCU_BINARY_INT_OR = 9, MCU_BINARY_INT_XOR = 10, MCU_BINARY_INT_SHL = 11,
    MCU_BINARY_INT_SHR = 12
};

/* dtype: MCU_DT_* of a, b and y (an integer type or bool); count output elements; bc walks a and b into y. */
typedef struct {
    int32_t op;
    int32_t dtype;
    int32_t count;
    mcu_bcast bc;
} mcu_binary_int_params;

/** y = a op b with numpy broadcasting. Add/Sub/Mul wrap modulo 2^width; Div truncates toward zero; Mod takes the
 *  divisor's sign (MOD) or the dividend's (FMOD); Div and Mod by zero give 0 (undefined in ONNX). Shifts by a negative
 *  amount or by the width or more give 0, or -1 for a right shift of a negative value. */
void mcu_binary_int(const mcu_binary_int_params *p, const void *a, const void *b, void *y);

#endif
