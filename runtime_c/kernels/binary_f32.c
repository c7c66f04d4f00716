#include "binary_f32.h"

/** One IEEE operation; a single rounding, so results match onnxruntime bit for bit. */
static float mcu_binary_apply(int32_t op, float a, float b)
{
    switch (op) {
    case MCU_BINARY_ADD:
        return a + b;
    case MCU_BINARY_SUB:
        return a - b;
    case MCU_BINARY_MUL:
        return a * b;
    default:
        return a / b;
    }
}

void mcu_binary_f32(const mcu_binary_f32_params *p, const float *a, const float *b, float *y)
{
    int32_t i;
    if (p->bc.rank == 0) {
        for (i = 0; i < p->count; ++i) {
            y[i] = mcu_binary_apply(p->op, a[i], b[i]);
        }
    } else {
        int32_t idx[MCU_MAX_RANK] = {0};
        int32_t ia = 0, ib = 0;
        for (i = 0; i < p->count; ++i) {
            y[i] = mcu_binary_apply(p->op, a[ia], b[ib]);
            mcu_bcast_next(&p->bc, idx, &ia, &ib);
        }
    }
}
