#ifndef MCU_MUL_S8_H
#define MCU_MUL_S8_H
#include "mcu_rt.h"

typedef struct {
    mcu_bcast bc;
    float ratio; /* a_scale * b_scale / y_scale in float32, in that order */
    int32_t a_zp, b_zp, y_zp, qmin, qmax;
    int32_t y_off; /* 128 where onnxruntime runs the output as uint8 */
    int32_t fixed, mult, shift; /* fixed != 0: TFLite int8 MUL, MultiplyByQuantizedMultiplier(product, mult, shift) */
} mcu_mul_s8_params;

/** Quantized element-wise multiplication with broadcasting (onnxruntime QLinearMul). */
void mcu_mul_s8(const mcu_mul_s8_params *p, const int8_t *a, const int8_t *b, int8_t *y);

#endif
