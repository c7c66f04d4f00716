#ifndef MCU_CONV_INTEGER_H
#define MCU_CONV_INTEGER_H
#include "mcu_rt.h"

/* g: the height/width part of the window; d_*, k_d, stride_d, dil_d, pad_f: its depth part for 3-D data
 * (1, 1, 1, 1, 1, 0 for 1-D and 2-D). x_dtype, w_dtype: MCU_DT_INT8 or MCU_DT_UINT8 (the zero points share them).
 * w_zp_count: 0 (no w zero point), 1 (one for all), or c_out (one per output channel). */
typedef struct {
    mcu_conv_geom g;
    int32_t d_in, d_out, k_d, stride_d, dil_d, pad_f;
    int32_t x_dtype, w_dtype;
    int32_t w_zp_count;
} mcu_conv_integer_params;

/** ONNX ConvInteger: y = sum (x - x_zp)(w - w_zp) over each window, in int32 (wrapping like onnxruntime's int32
 * accumulator); padding holds x_zp, so it adds nothing. x_zp and w_zp may be NULL (zero). */
void mcu_conv_integer(const mcu_conv_integer_params *p, const void *x, const void *w, const void *x_zp,
                      const void *w_zp, int32_t *y);

#endif
