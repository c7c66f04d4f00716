#ifndef MCU_ACTIVATION_F32_H
#define MCU_ACTIVATION_F32_H
#include "mcu_rt.h"

/* Op codes: mcucomp/ops/activation_f32.py CODES. */
enum {
    MCU_ACT_EXP = 0, MCU_ACT_LOG = 1, MCU_ACT_ERF = 2, MCU_ACT_ELU = 3, MCU_ACT_CELU = 4, MCU_ACT_SELU = 5,
    MCU_ACT_SOFTPLUS = 6, MCU_ACT_MISH = 7, MCU_ACT_SWISH = 8, MCU_ACT_GELU = 9, MCU_ACT_GELU_TANH = 10
};

/* alpha: Elu, Celu, Selu, Swish; gamma: Selu. */
typedef struct {
    int32_t op;
    int32_t count;
    float alpha, gamma;
} mcu_activation_f32_params;

/** y = f(x) element-wise for the ONNX op selected by p->op, with mcu_math.h (in place allowed). */
void mcu_activation_f32(const mcu_activation_f32_params *p, const float *x, float *y);

#endif
