#ifndef MCU_SOFTMAX_S8_H
#define MCU_SOFTMAX_S8_H
#include "mcu_rt.h"

#define MCU_SOFTMAX_S8_FLOAT 0   /* DequantizeLinear → float Softmax (MLAS sequence) → QuantizeLinear */
#define MCU_SOFTMAX_S8_QLINEAR 1 /* onnxruntime's QLinearSoftmax: exp lookup table, float sum, one division */

typedef struct {
    int32_t outer, axis_len, inner;
    float x_scale, y_scale;
    int32_t x_zp, y_zp, qmin, qmax;
    int32_t mode;        /* MCU_SOFTMAX_S8_* */
    const float *table;  /* QLINEAR: 256 entries, indexed by x - max(row) + 255 */
    float y_mult;        /* QLINEAR: floor(1 / y_scale) */
    int32_t offset;      /* QLINEAR: 128 when onnxruntime runs the tensors as uint8 (its codes = ours + 128) */
    int32_t top;         /* QLINEAR: largest code in onnxruntime's type (127 or 255) */
    int32_t inf_code;    /* QLINEAR: its code when e * y_mult overflows to inf */
} mcu_softmax_s8_params;

/** Quantized softmax in onnxruntime's arithmetic for each mode; scratch: axis_len floats. */
void mcu_softmax_s8(const mcu_softmax_s8_params *p, const int8_t *x, int8_t *y, void *scratch);

#endif
