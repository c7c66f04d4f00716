#ifndef MCU_DEFORM_CONV_F32_H
#define MCU_DEFORM_CONV_F32_H
#include "mcu_rt.h"

/* g: the 2-D window; offset_group: how many input-channel groups have their own offsets and mask. */
typedef struct {
    mcu_conv_geom g;
    int32_t offset_group;
} mcu_deform_conv_f32_params;

/** ONNX DeformConv (2-D): each kernel tap of each output samples its input channel bilinearly (zero outside the
 * image) at the tap's position moved by `offset` ([n, offset_group * k_h * k_w * 2 (dy, dx), h_out, w_out]) and
 * scaled by `mask` ([n, offset_group * k_h * k_w, h_out, w_out]; NULL: 1); bias may be NULL. */
void mcu_deform_conv_f32(const mcu_deform_conv_f32_params *p, const float *x, const float *w, const float *offset,
                         const float *bias, const float *mask, float *y);

#endif
