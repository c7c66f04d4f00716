#ifndef MCU_GATHER_ELEMENTS_H
#define MCU_GATHER_ELEMENTS_H
#include "mcu_rt.h"
#include "index.h"

/* The output is written in order over dims (the indices' dims, merged by the compiler where the data is read
 * contiguously too). The data element read for an output element is base + idx * axis_stride, where base walks
 * the data by strides (the data's element strides, 0 at the axis) and idx is the index value at the same position.
 * Indices outside [-axis_len, axis_len) give 0 (an error in ONNX). */
typedef struct {
    int32_t rank, count, elem_bytes, idx_dtype, axis_len, axis_stride;
    int32_t dims[MCU_MAX_RANK];
    int32_t strides[MCU_MAX_RANK];
} mcu_gather_elements_params;

/** GatherElements along any axis, any data dtype. */
void mcu_gather_elements(const mcu_gather_elements_params *p, const void *x, const void *idx, void *y);

#endif
