#ifndef MCU_ADD_S8_H
#define MCU_ADD_S8_H
#include "mcu_rt.h"

#define MCU_ADD_S8_QLINEAR 0 /* onnxruntime QLinearAdd: ratios and a fixed term, FMAs, one rounding */
#define MCU_ADD_S8_FLOAT 1   /* DequantizeLinear both, float add, QuantizeLinear */
#define MCU_ADD_S8_FIXED 2   /* TFLite int8 ADD: left shift, per-input and output MultiplyByQuantizedMultiplier */

/* The linear forms (mcucomp/ops/add_s8.py linear_form): lin selects one, with its fraction bits */
#define MCU_ADD_S8_LIN_NONE 0  /* none: the mode's own arithmetic for every element */
#define MCU_ADD_S8_LIN_EXACT 1 /* code = sat(x >> 22) for every pair of codes */
#define MCU_ADD_S8_LIN_TIES 2  /* code = sat(x >> 16) unless x lies near a tie (below lin_near once shifted up) */
#define MCU_ADD_S8_EXACT_SHIFT 22
#define MCU_ADD_S8_TIES_SHIFT 16

typedef struct {
    mcu_bcast bc;
    int32_t mode;
    float a_scale, b_scale, y_scale;
    int32_t a_zp, b_zp, y_zp, qmin, qmax;
    float r_ay, r_by, fixed; /* QLinearAdd terms, computed by the compiler exactly as onnxruntime does */
    int32_t a_off, b_off, y_off; /* 128 where onnxruntime runs that tensor as uint8 (its s8→u8 retyping) */
    int32_t left_shift, a_mult, a_shift, b_mult, b_shift, y_mult, y_shift; /* TFLite ADD's, fixed mode */
    /* the linear form (any mode): x = lin_a a + lin_b b + lin_c in int32; LIN_EXACT: the code is
     * sat(x >> MCU_ADD_S8_EXACT_SHIFT); LIN_TIES: when x << (32 - MCU_ADD_S8_TIES_SHIFT) is at least lin_near (as
     * uint32) the code is sat(x >> MCU_ADD_S8_TIES_SHIFT), else (near a rounding tie) the mode's own arithmetic
     * decides; both proven by the compiler for all pairs of int8 codes */
    int32_t lin, lin_a, lin_b, lin_c;
    uint32_t lin_near;
} mcu_add_s8_params;

/** Quantized element-wise addition with broadcasting. */
void mcu_add_s8(const mcu_add_s8_params *p, const int8_t *a, const int8_t *b, int8_t *y);

#endif
