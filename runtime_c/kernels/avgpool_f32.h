#ifndef MCU_AVGPOOL_F32_H
#define MCU_AVGPOOL_F32_H
#include "mcu_rt.h"

/* g: the height/width part of the window; d_*, k_d, stride_d, dil_d, pad_f: its depth part for 3-D data
 * (1, 1, 1, 1, 1, 0 for 1-D and 2-D). pad_bk/pad_b/pad_r (back, bottom, right pads) bound the padded extent that
 * count_include_pad counts. p: 0 for the average, else LpPool's exponent (>= 1). */
typedef struct {
    mcu_conv_geom g;
    int32_t d_in, d_out, k_d, stride_d, dil_d, pad_f;
    int32_t pad_bk, pad_b, pad_r;
    int32_t count_include_pad;
    int32_t p;
} mcu_avgpool_f32_params;

/** Average pooling, or Lp pooling (p >= 1), on NC[D]HW data (1-D uses h = 1), also the global variants as one
 * full-size window. */
void mcu_avgpool_f32(const mcu_avgpool_f32_params *p, const float *x, float *y);

#endif
