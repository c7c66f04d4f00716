#ifndef MCU_CONV_TRANSPOSE_F32_H
#define MCU_CONV_TRANSPOSE_F32_H
#include "mcu_rt.h"

/* g: the height/width part of the window (pad_t/pad_l: the begin pads, which may be negative when output_shape asks
 * for more than the full output); d_*, k_d, stride_d, dil_d, pad_f: its depth part for 3-D data (1, 1, 1, 1, 1, 0
 * for 1-D and 2-D). */
typedef struct {
    mcu_conv_geom g;
    int32_t d_in, d_out, k_d, stride_d, dil_d, pad_f;
} mcu_conv_transpose_f32_params;

/** Transposed convolution (NC[D]HW, groups, strides, dilations, pads): w is [c_in, c_out / group, k_d, k_h, k_w];
 * w and bias may be runtime tensors; bias may be NULL. */
void mcu_conv_transpose_f32(const mcu_conv_transpose_f32_params *p, const float *x, const float *w,
                            const float *bias, float *y);

#endif
