#ifndef MCU_MAXPOOL_F32_H
#define MCU_MAXPOOL_F32_H
#include "mcu_rt.h"

/* g: the height/width part of the window; d_*, k_d, stride_d, dil_d, pad_f: its depth part for 3-D data
 * (1, 1, 1, 1, 1, 0 for 1-D and 2-D). dtype: MCU_DT_FLOAT, MCU_DT_INT8 or MCU_DT_UINT8 (x and y alike).
 * storage_order: how Indices number a plane's elements, 0 row-major, 1 column-major. */
typedef struct {
    mcu_conv_geom g;
    int32_t d_in, d_out, k_d, stride_d, dil_d, pad_f;
    int32_t dtype;
    int32_t storage_order;
    int32_t channels_last; /* 1: x and y are int8 N, H, W, C (2-D only, indices NULL); 0: N, C, [D,] H, W */
} mcu_maxpool_f32_params;

/** Max pooling with pads, strides and dilations (NC[D]HW, 1-D uses h = 1), also GlobalMaxPool; indices (int64,
 * flat input positions, ONNX MaxPool's output 1) may be NULL. */
void mcu_maxpool_f32(const mcu_maxpool_f32_params *p, const void *x, void *y, int64_t *indices);

#endif
