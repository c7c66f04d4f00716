#include "trig_f32.h"
#include "mcu_math.h"

/** One element. */
static float mcu_trig_apply(int32_t op, float v)
{
    switch (op) {
    case MCU_TRIG_SIN:
        return mcu_sinf(v);
    case MCU_TRIG_COS:
        return mcu_cosf(v);
    case MCU_TRIG_TAN:
        return mcu_tanf(v);
    case MCU_TRIG_ASIN:
        return mcu_asinf(v);
    case MCU_TRIG_ACOS:
        return mcu_acosf(v);
    case MCU_TRIG_ATAN:
        return mcu_atanf(v);
    case MCU_TRIG_SINH:
        return mcu_sinhf(v);
    case MCU_TRIG_COSH:
        return mcu_coshf(v);
    case MCU_TRIG_ASINH:
        return mcu_asinhf(v);
    case MCU_TRIG_ACOSH:
        return mcu_acoshf(v);
    default: /* MCU_TRIG_ATANH */
        return mcu_atanhf(v);
    }
}

void mcu_trig_f32(const mcu_trig_f32_params *p, const float *x, float *y)
{
    int32_t i;
    for (i = 0; i < p->count; ++i) {
        y[i] = mcu_trig_apply(p->op, x[i]);
    }
}
