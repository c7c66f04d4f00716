#ifndef MCU_ADD_S8_H
#define MCU_ADD_S8_H
#include "mcu_rt.h"

#define MCU_ADD_S8_QLINEAR 0 /* onnxruntime QLinearAdd: ratios and a fixed term, FMAs, one rounding */
#define MCU_ADD_S8_FLOAT 1   /* DequantizeLinear both, float add, QuantizeLinear */
#define MCU_ADD_S8_FIXED 2   /* TFLite int8 ADD: left shift, per-input and output MultiplyByQuantizedMultiplier */

#define MCU_ADD_S8_LIN_SHIFT 16 /* fraction bits of the linear form (mcucomp/ops/add_s8.py LIN_SHIFT) */

typedef struct {
    mcu_bcast bc;
    int32_t mode;
    float a_scale, b_scale, y_scale;
    int32_t a_zp, b_zp, y_zp, qmin, qmax;
    float r_ay, r_by, fixed; /* QLinearAdd terms, computed by the compiler exactly as onnxruntime does */
    int32_t a_off, b_off, y_off; /* 128 where onnxruntime runs that tensor as uint8 (its s8→u8 retyping) */
    int32_t left_shift, a_mult, a_shift, b_mult, b_shift, y_mult, y_shift; /* TFLite ADD's, fixed mode */
    /* the linear form (lin != 0, any mode): x = lin_a a + lin_b b + lin_c; when x << (32 - MCU_ADD_S8_LIN_SHIFT)
     * is at least lin_near (as uint32) the code is sat(x >> MCU_ADD_S8_LIN_SHIFT), proven by the compiler for every
     * pair of int8 codes; else (near a rounding tie) the mode's own arithmetic decides */
    int32_t lin, lin_a, lin_b, lin_c;
    uint32_t lin_near;
} mcu_add_s8_params;

/** Quantized element-wise addition with broadcasting. */
void mcu_add_s8(const mcu_add_s8_params *p, const int8_t *a, const int8_t *b, int8_t *y);

#endif
