#ifndef MCU_RESIZE_H
#define MCU_RESIZE_H
#include "mcu_rt.h"

/* The output viewed as `rank` axes of out_dims. Axis a's taps: rows table[a] .. table[a] + out_dims[a] * taps[a]
 * of offsets (element offsets into x, one row of taps[a] per output position; a row starting with -1 marks a
 * position outside the crop, whose outputs are `extrapolation`) and of weights. An output element reads the product
 * of its positions' taps: the sum of x[sum of offsets] * (product of weights), or with weights == NULL (nearest, one
 * tap per axis) a copy of that element of elem_size bytes. 8-bit linear resizes use iweights instead of weights: the
 * int32 sum of (x - zero_point) * (product of iweights), divided by 2^shift rounding half to even, plus zero_point. */
typedef struct {
    int32_t rank;
    int32_t out_dims[MCU_MAX_RANK];
    int32_t taps[MCU_MAX_RANK];
    int32_t table[MCU_MAX_RANK];
    const int32_t *offsets;
    const float *weights;
    const int32_t *iweights; /* 8-bit linear: integer weights, the product of an output's taps shifted right by shift */
    int32_t shift;
    int32_t is_signed;       /* 8-bit linear: int8 (1) or uint8 (0) data */
    int32_t zero_point;      /* 8-bit linear: the data's zero point */
    int32_t elem_size;
    float extrapolation;
} mcu_resize_params;

/** Resize as a gather of precomputed taps: float32 weighted sums (linear, cubic), integer weighted sums (8-bit
 * linear) or a copy of any dtype (nearest). */
void mcu_resize(const mcu_resize_params *p, const void *x, void *y);

#endif
