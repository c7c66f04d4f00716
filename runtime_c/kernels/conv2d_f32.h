#ifndef MCU_CONV2D_F32_H
#define MCU_CONV2D_F32_H
#include "mcu_rt.h"

/* conv2d_f32's params, shared by its paths (mcucomp/ops/conv2d_f32.py PATHS; one runtime file each).
 * g: the height/width part of the window; d_*, k_d, stride_d, dil_d, pad_f: its depth part for 3-D data
 * (1, 1, 1, 1, 1, 0 for 1-D and 2-D). w, bias: the constant-weight paths' packed weights and bias (c_out rounded up
 * to the block, zeros where absent; conv2d_f32_gemm.h); NULL on the general path, which takes them as arguments.
 * taps: the im2col path's window offsets, tap by tap (input channel, kernel row, column), from the window's first
 * input (c * h_in * w_in + ky * dil_h * w_in + kx * dil_w); NULL on the other paths. */
typedef struct {
    mcu_conv_geom g;
    int32_t d_in, d_out, k_d, stride_d, dil_d, pad_f;
    float act_min, act_max;
    const float *w, *bias;
    const int32_t *taps;
} mcu_conv2d_f32_params;

#endif
