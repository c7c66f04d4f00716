#ifndef MCU_AVGPOOL_F32_H
#define MCU_AVGPOOL_F32_H
#include "mcu_rt.h"

/* pad_b/pad_r bound the padded extent that count_include_pad counts (onnxruntime clips windows there). */
typedef struct {
    mcu_conv_geom g;
    int32_t pad_b, pad_r;
    int32_t count_include_pad;
} mcu_avgpool_f32_params;

/** Average pooling (NCHW, 1-D uses h = 1), also GlobalAveragePool as one full-size window. */
void mcu_avgpool_f32(const mcu_avgpool_f32_params *p, const float *x, float *y);

#endif
