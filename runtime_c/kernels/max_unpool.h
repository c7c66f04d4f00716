#ifndef MCU_MAX_UNPOOL_H
#define MCU_MAX_UNPOOL_H
#include "mcu_rt.h"

/* count: elements of x (and of the indices). The indices address the unpooled tensor of `rank` dims `dims` (flat,
 * row-major); that tensor sits at the origin of the output, whose element strides are out_strides, and out_count
 * elements of elem_size bytes are zeroed first. */
typedef struct {
    int32_t count, out_count, elem_size, rank;
    int32_t dims[MCU_MAX_RANK];
    int32_t out_strides[MCU_MAX_RANK];
} mcu_max_unpool_params;

/** ONNX MaxUnpool: zeros, then x[i] stored at position idx[i] (int64); indices outside the unpooled tensor are
 * skipped. A later index overwrites an earlier one at the same position. */
void mcu_max_unpool(const mcu_max_unpool_params *p, const void *x, const int64_t *idx, void *y);

#endif
