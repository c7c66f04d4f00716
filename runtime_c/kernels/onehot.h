#ifndef MCU_ONEHOT_H
#define MCU_ONEHOT_H
#include "mcu_rt.h"
#include "index.h"

/* The indices viewed as [outer, inner], the output as [outer, depth, inner]: element (o, d, i) is values[1] (on)
 * when indices[o, i] (negative values counting from the end) equals d, else values[0] (off). Indices outside
 * [-depth, depth) give an all-off row. idx_dtype is the MCU_DT_* of the indices (floats truncate). */
typedef struct {
    int32_t outer, depth, inner, elem_bytes, idx_dtype;
} mcu_onehot_params;

/** OneHot along any axis; values are [off, on] in the output dtype (any). */
void mcu_onehot(const mcu_onehot_params *p, const void *idx, const void *values, void *y);

#endif
