#ifndef MCU_TRIG_F32_H
#define MCU_TRIG_F32_H
#include "mcu_rt.h"

/* Op codes: mcucomp/ops/trig_f32.py CODES. */
enum {
    MCU_TRIG_SIN = 0, MCU_TRIG_COS = 1, MCU_TRIG_TAN = 2, MCU_TRIG_ASIN = 3, MCU_TRIG_ACOS = 4, MCU_TRIG_ATAN = 5,
    MCU_TRIG_SINH = 6, MCU_TRIG_COSH = 7, MCU_TRIG_ASINH = 8, MCU_TRIG_ACOSH = 9, MCU_TRIG_ATANH = 10
};

typedef struct {
    int32_t op;
    int32_t count;
} mcu_trig_f32_params;

/** y = f(x) element-wise for the ONNX op selected by p->op, with mcu_math.h (in place allowed). */
void mcu_trig_f32(const mcu_trig_f32_params *p, const float *x, float *y);

#endif
