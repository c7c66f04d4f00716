#ifndef MCU_GATHER_ND_H
#define MCU_GATHER_ND_H
#include "mcu_rt.h"
#include "index.h"

/* batch_dims leading dims shared by data and indices (batches of them); per batch, `tuples` index tuples of k
 * values each pick the data slice at (i0, ..., i{k-1}) over the k dims after the batch dims (dims, element strides),
 * slice_elems elements long. Out-of-range tuples (an error in ONNX) give a zero slice. */
typedef struct {
    int32_t batches, tuples, k, batch_elems, slice_elems, elem_bytes, idx_dtype;
    const int32_t *dims;
    const int32_t *strides;
} mcu_gather_nd_params;

/** GatherND with batch_dims, any data dtype. */
void mcu_gather_nd(const mcu_gather_nd_params *p, const void *x, const void *idx, void *y);

#endif
