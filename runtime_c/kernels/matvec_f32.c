#include "matvec_f32.h"
#include <math.h>

/* Eight rows at a time: x[k] is loaded once for the block's eight accumulators, whose weights are the next eight
 * floats of the packed stream (contiguous loads). Register blocking over rows leaves each row's order alone. */
void mcu_matvec_f32(const float *w, int32_t rows, int32_t cols, const float *x, const float *init, float *y)
{
    int32_t j = 0, k;
    for (; j + MCU_MATVEC_F32_BLOCK <= rows; j += MCU_MATVEC_F32_BLOCK) {
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, a4 = 0.0f, a5 = 0.0f, a6 = 0.0f, a7 = 0.0f;
        if (init != NULL) {
            a0 = init[j], a1 = init[j + 1], a2 = init[j + 2], a3 = init[j + 3];
            a4 = init[j + 4], a5 = init[j + 5], a6 = init[j + 6], a7 = init[j + 7];
        }
        for (k = 0; k + 2 <= cols; k += 2) { /* two columns a turn: one loop test per 16 MACs */
            const float v = x[k], u = x[k + 1];
            a0 = MCU_F32_MAC(a0, w[0], v);
            a1 = MCU_F32_MAC(a1, w[1], v);
            a2 = MCU_F32_MAC(a2, w[2], v);
            a3 = MCU_F32_MAC(a3, w[3], v);
            a4 = MCU_F32_MAC(a4, w[4], v);
            a5 = MCU_F32_MAC(a5, w[5], v);
            a6 = MCU_F32_MAC(a6, w[6], v);
            a7 = MCU_F32_MAC(a7, w[7], v);
            a0 = MCU_F32_MAC(a0, w[8], u);
            a1 = MCU_F32_MAC(a1, w[9], u);
            a2 = MCU_F32_MAC(a2, w[10], u);
            a3 = MCU_F32_MAC(a3, w[11], u);
            a4 = MCU_F32_MAC(a4, w[12], u);
            a5 = MCU_F32_MAC(a5, w[13], u);
            a6 = MCU_F32_MAC(a6, w[14], u);
            a7 = MCU_F32_MAC(a7, w[15], u);
            w += 2 * MCU_MATVEC_F32_BLOCK;
        }
        if (k < cols) {
            const float v = x[k];
            a0 = MCU_F32_MAC(a0, w[0], v);
            a1 = MCU_F32_MAC(a1, w[1], v);
            a2 = MCU_F32_MAC(a2, w[2], v);
            a3 = MCU_F32_MAC(a3, w[3], v);
            a4 = MCU_F32_MAC(a4, w[4], v);
            a5 = MCU_F32_MAC(a5, w[5], v);
            a6 = MCU_F32_MAC(a6, w[6], v);
            a7 = MCU_F32_MAC(a7, w[7], v);
            w += MCU_MATVEC_F32_BLOCK;
        }
        y[j] = a0, y[j + 1] = a1, y[j + 2] = a2, y[j + 3] = a3;
        y[j + 4] = a4, y[j + 5] = a5, y[j + 6] = a6, y[j + 7] = a7;
    }
    if (rows - j >= MCU_MATVEC_F32_HALF) {
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        if (init != NULL) {
            a0 = init[j], a1 = init[j + 1], a2 = init[j + 2], a3 = init[j + 3];
        }
        for (k = 0; k < cols; ++k) {
            const float v = x[k];
            a0 = MCU_F32_MAC(a0, w[0], v);
            a1 = MCU_F32_MAC(a1, w[1], v);
            a2 = MCU_F32_MAC(a2, w[2], v);
            a3 = MCU_F32_MAC(a3, w[3], v);
            w += MCU_MATVEC_F32_HALF;
        }
        y[j] = a0, y[j + 1] = a1, y[j + 2] = a2, y[j + 3] = a3;
        j += MCU_MATVEC_F32_HALF;
    }
    for (; j < rows; ++j) {
        float acc = init != NULL ? init[j] : 0.0f;
        for (k = 0; k < cols; ++k) {
            acc = MCU_F32_MAC(acc, w[k], x[k]);
        }
        y[j] = acc;
        w += cols;
    }
}
