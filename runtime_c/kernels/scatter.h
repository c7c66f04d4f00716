#ifndef MCU_SCATTER_H
#define MCU_SCATTER_H
#include "mcu_rt.h"
#include "index.h"

/* Which op, and how an update meets the element it lands on. */
#define MCU_SCATTER_ELEMENTS 0
#define MCU_SCATTER_ND 1
#define MCU_SCATTER_NONE 0
#define MCU_SCATTER_ADD 1
#define MCU_SCATTER_MUL 2
#define MCU_SCATTER_MAX 3
#define MCU_SCATTER_MIN 4

/* y starts as a copy of the data (total elements). Then `count` update units are applied in order, each of
 * unit_elems consecutive update elements:
 * ELEMENTS (unit_elems 1): unit i lands at base + idx[i] * axis_stride, where base walks the data over dims/strides
 *   (the indices' dims; the data's element strides, 0 at the axis), axis_len the axis length;
 * ND: unit i lands at sum over t < k of idx[i * k + t] * strides[t] (dims[t] the indexed dims' lengths).
 * Indices count from the end when negative; out-of-range ones (an error in ONNX) skip their unit. */
typedef struct {
    int32_t mode, reduction, dtype, elem_bytes, idx_dtype;
    int32_t total, count, unit_elems;
    int32_t rank, axis_len, axis_stride, k;
    int32_t dims[MCU_MAX_RANK];
    int32_t strides[MCU_MAX_RANK];
} mcu_scatter_params;

/** ScatterElements and ScatterND with reduction none / add / mul / max / min, any data dtype (integers wrap). */
void mcu_scatter(const mcu_scatter_params *p, const void *data, const void *idx, const void *updates, void *y);

#endif
