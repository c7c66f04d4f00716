#ifndef MCU_BINARY_F32_H
#define MCU_BINARY_F32_H
#include "mcu_rt.h"

enum { MCU_BINARY_ADD = 0, MCU_BINARY_SUB = 1, MCU_BINARY_MUL = 2, MCU_BINARY_DIV = 3 };

/* count output elements; bc.rank == 0 means both inputs have the output's shape (flat loop). */
typedef struct {
    int32_t op;
    int32_t count;
    mcu_bcast bc;
} mcu_binary_f32_params;

/** y = a (+ - * /) b with numpy broadcasting. */
void mcu_binary_f32(const mcu_binary_f32_params *p, const float *a, const float *b, float *y);

#endif
