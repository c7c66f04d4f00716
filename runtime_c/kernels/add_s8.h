#ifndef MCU_ADD_S8_H
#define MCU_ADD_S8_H
#include "mcu_rt.h"

#define MCU_ADD_S8_QLINEAR 0 /* onnxruntime QLinearAdd: ratios and a fixed term, FMAs, one rounding */
#define MCU_ADD_S8_FLOAT 1   /* DequantizeLinear both, float add, QuantizeLinear */
#define MCU_ADD_S8_FIXED 2   /* TFLite int8 ADD: left shift, per-input and output MultiplyByQuantizedMultiplier */

typedef struct {
    mcu_bcast bc;
    int32_t mode;
    float a_scale, b_scale, y_scale;
    int32_t a_zp, b_zp, y_zp, qmin, qmax;
    float r_ay, r_by, fixed; /* QLinearAdd terms, computed by the compiler exactly as onnxruntime does */
    int32_t a_off, b_off, y_off; /* 128 where onnxruntime runs that tensor as uint8 (its s8→u8 retyping) */
    int32_t left_shift, a_mult, a_shift, b_mult, b_shift, y_mult, y_shift; /* TFLite ADD's, fixed mode */
} mcu_add_s8_params;

/** Quantized element-wise addition with broadcasting. */
void mcu_add_s8(const mcu_add_s8_params *p, const int8_t *a, const int8_t *b, int8_t *y);

#endif
