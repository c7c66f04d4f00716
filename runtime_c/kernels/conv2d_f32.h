#ifndef MCU_CONV2D_F32_H
#define MCU_CONV2D_F32_H
#include "mcu_rt.h"

/* g: the height/width part of the window; d_*, k_d, stride_d, dil_d, pad_f: its depth part for 3-D data
 * (1, 1, 1, 1, 1, 0 for 1-D and 2-D). */
typedef struct {
    mcu_conv_geom g;
    int32_t d_in, d_out, k_d, stride_d, dil_d, pad_f;
    float act_min, act_max;
} mcu_conv2d_f32_params;

/** Float convolution (NC[D]HW, groups, dilations, pads); w and bias may be runtime tensors; bias may be NULL.
 * scratch: NULL, or c_in floats for a 1x1 stride-1 unpadded ungrouped conv of batch 1, which then runs pixel by
 * pixel so that y may start at x's address (see mcucomp/ops/_overlap.py pointwise). */
void mcu_conv2d_f32(const mcu_conv2d_f32_params *p, const float *x, const float *w, const float *bias, float *y,
                    void *scratch);

#endif
