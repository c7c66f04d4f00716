#ifndef MCU_CONV2D_DQF_S8_H
#define MCU_CONV2D_DQF_S8_H
#include "mcu_rt.h"
#include "mlas_dot.h"

/* A quantized conv that onnxruntime runs in float (DequantizeLinear → float Conv → QuantizeLinear). */
typedef struct {
    mcu_conv_geom g;
    int32_t x_zp;
    float x_scale;
    float y_scale;
    int32_t y_zp, qmin, qmax;
    int32_t order;            /* MCU_MLAS_*: which MLAS kernel's summation order */
    int32_t n_seg;            /* output-pixel segments with their own K block size */
    const int32_t *seg_end;   /* exclusive end pixel of each segment (h_out * w_out numbering) */
    const int32_t *seg_kblock;
} mcu_conv2d_dqf_s8_params;

/** int8 in/out conv computed in float like MLAS: dequantize, dot products in MLAS's order, bias, quantize.
 * scratch: one output pixel's dequantized taps (c_in / group * k_h * k_w floats). */
void mcu_conv2d_dqf_s8(const mcu_conv2d_dqf_s8_params *p, const int8_t *x, const float *w, const float *bias,
                       int8_t *y, void *scratch);

#endif
