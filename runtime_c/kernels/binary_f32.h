#ifndef MCU_BINARY_F32_H
#define MCU_BINARY_F32_H
#include <math.h>

#include "mcu_rt.h"

enum {
    MCU_BINARY_ADD = 0, MCU_BINARY_SUB = 1, MCU_BINARY_MUL = 2, MCU_BINARY_DIV = 3, MCU_BINARY_MAX = 4,
    MCU_BINARY_MIN = 5, MCU_BINARY_MOD = 6, MCU_BINARY_FMOD = 7
};

/* count output elements; bc.rank == 0 means both inputs have the output's shape (flat loop). */
typedef struct {
    int32_t op;
    int32_t count;
    mcu_bcast bc;
} mcu_binary_f32_params;

/** y = a op b with numpy broadcasting: + - * /, max/min (NaN propagates), Mod with the sign of b (MOD, numpy's
 *  np.mod) or of a (FMOD, C fmodf). */
void mcu_binary_f32(const mcu_binary_f32_params *p, const float *a, const float *b, float *y);

/* The kernel body for one floating type T, shared with binary_f64 (a separate kernel, so float32 models do not link
 * software double arithmetic). Each op is one IEEE operation with a single rounding (fmod is exact), so results
 * match onnxruntime bit for bit. Mod (numpy's np.mod): the remainder takes the sign of b; a zero result takes b's
 * sign, and b = +-inf keeps a finite a of b's sign and gives b otherwise. Max and Min propagate NaN like np.maximum
 * and np.minimum. FMOD and COPYSIGN are the <math.h> functions of T (both exact). */
#define MCU_BINARY_FLOAT_KERNEL(NAME, T, FMOD, COPYSIGN)                                                           \
    static T NAME##_apply(int32_t op, T a, T b)                                                                    \
    {                                                                                                              \
        T r;                                                                                                       \
        switch (op) {                                                                                              \
        case MCU_BINARY_ADD:                                                                                       \
            return a + b;                                                                                          \
        case MCU_BINARY_SUB:                                                                                       \
            return a - b;                                                                                          \
        case MCU_BINARY_MUL:                                                                                       \
            return a * b;                                                                                          \
        case MCU_BINARY_DIV:                                                                                       \
            return a / b;                                                                                          \
        case MCU_BINARY_MAX:                                                                                       \
            return (isnan(a) || a > b) ? a : b;                                                                    \
        case MCU_BINARY_MIN:                                                                                       \
            return (isnan(a) || a < b) ? a : b;                                                                    \
        case MCU_BINARY_MOD:                                                                                       \
            r = FMOD(a, b);                                                                                        \
            if (r == 0) {                                                                                          \
                return COPYSIGN(0, b);                                                                             \
            }                                                                                                      \
            return (r < 0) != (b < 0) ? r + b : r;                                                                 \
        default:                                                                                                   \
            return FMOD(a, b);                                                                                     \
        }                                                                                                          \
    }                                                                                                              \
                                                                                                                   \
    void NAME(const NAME##_params *p, const T *a, const T *b, T *y)                                                \
    {                                                                                                              \
        int32_t i;                                                                                                 \
        if (p->bc.rank == 0) {                                                                                     \
            for (i = 0; i < p->count; ++i) {                                                                       \
                y[i] = NAME##_apply(p->op, a[i], b[i]);                                                            \
            }                                                                                                      \
        } else {                                                                                                   \
            int32_t idx[MCU_MAX_RANK] = {0};                                                                       \
            int32_t ia = 0, ib = 0;                                                                                \
            for (i = 0; i < p->count; ++i) {                                                                       \
                y[i] = NAME##_apply(p->op, a[ia], b[ib]);                                                          \
                mcu_bcast_next(&p->bc, idx, &ia, &ib);                                                             \
            }                                                                                                      \
        }                                                                                                          \
    }

#endif
