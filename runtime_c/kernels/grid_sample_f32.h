#ifndef MCU_GRID_SAMPLE_F32_H
#define MCU_GRID_SAMPLE_F32_H
#include "mcu_rt.h"

/* Interpolation (mode) and out-of-range handling (padding). */
#define MCU_GS_NEAREST 0
#define MCU_GS_LINEAR 1
#define MCU_GS_CUBIC 2
#define MCU_GS_ZEROS 0
#define MCU_GS_BORDER 1
#define MCU_GS_REFLECTION 2
#define MCU_GS_MAX_DIMS 3

/* x is [n, c, dims...] (nd spatial dims), grid [n, points, nd] with the last spatial dim first, y [n, c, points]. */
typedef struct {
    int32_t n, c, nd, dims[MCU_GS_MAX_DIMS], points;
    int32_t mode, padding, align_corners;
} mcu_grid_sample_f32_params;

/** GridSample (opset 16-22): every output point samples x at its grid location (normalized to [-1, 1]) with nearest
 * (ties to even), N-linear or N-cubic (Keys, a = -0.75) interpolation, in the ONNX reference's order: interpolate
 * along the last dim first. */
void mcu_grid_sample_f32(const mcu_grid_sample_f32_params *p, const float *x, const float *grid, float *y);

#endif
