#ifndef MCU_GATHER_H
#define MCU_GATHER_H
#include "mcu_rt.h"
#include "index.h"

/* The data viewed as [outer, axis_len, inner] (inner in bytes), the output as [outer, n_idx, inner]: output slab
 * (o, i) is data slab (o, idx[i]). Negative indices count from the end; indices outside [-axis_len, axis_len)
 * (an error in ONNX) give a zero slab. idx_dtype is the MCU_DT_* of the indices. */
typedef struct {
    int32_t outer, axis_len, inner_bytes, n_idx, idx_dtype;
} mcu_gather_params;

/** Gather (and Compress, with constant indices) along one axis, any data dtype. */
void mcu_gather(const mcu_gather_params *p, const void *x, const void *idx, void *y);

#endif
