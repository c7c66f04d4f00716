#include "activation_f32.h"
#include "mcu_math.h"

/** One element. Exp is mcu_expf (onnxruntime's MLAS exp, so Exp matches it to the bit); the rest are rounded once
 * from double. */
static float mcu_activation_apply(const mcu_activation_f32_params *p, float v)
{
    switch (p->op) {
    case MCU_ACT_EXP:
        return mcu_expf(v);
    case MCU_ACT_LOG:
        return mcu_logf(v);
    case MCU_ACT_ERF:
        return mcu_erff(v);
    case MCU_ACT_ELU:
        return mcu_eluf(v, p->alpha);
    case MCU_ACT_CELU:
        return mcu_celuf(v, p->alpha);
    case MCU_ACT_SELU:
        /* gamma (alpha (e^x - 1)) for x <= 0, gamma x otherwise. */
        return v > 0.0f ? p->gamma * v
                        : (float)((double)p->gamma * ((double)p->alpha * mcu_expm1_d((double)v)));
    case MCU_ACT_SOFTPLUS:
        return mcu_softplusf(v);
    case MCU_ACT_MISH:
        return mcu_mishf(v);
    case MCU_ACT_SWISH:
        return mcu_swishf(v, p->alpha);
    case MCU_ACT_GELU:
        return mcu_geluf(v);
    default: /* MCU_ACT_GELU_TANH */
        return mcu_gelu_tanhf(v);
    }
}

void mcu_activation_f32(const mcu_activation_f32_params *p, const float *x, float *y)
{
    int32_t i;
    for (i = 0; i < p->count; ++i) {
        y[i] = mcu_activation_apply(p, x[i]);
    }
}
