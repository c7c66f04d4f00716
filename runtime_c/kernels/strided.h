#ifndef MCU_STRIDED_H
#define MCU_STRIDED_H
#include "mcu_rt.h"

/* Helpers shared by the reduction, arg, top-k, normalization and einsum kernels. */

/** Operands one walk advances together (e.g. input, scale and bias of a normalization). */
#define MCU_WALK_OPS 3

/** A row-major walk over up to MCU_MAX_RANK dims; strides[k][d] is operand k's element step along dim d.
 * Rank 0 walks one element. */
typedef struct {
    int32_t rank;
    int32_t dims[MCU_MAX_RANK];
    int32_t strides[MCU_WALK_OPS][MCU_MAX_RANK];
} mcu_walk;

/** Number of positions of a walk (0 when a dim is 0). */
int32_t mcu_walk_count(const mcu_walk *w);

/** Advance idx (rank counters, start all 0) by one position and off[k] (start 0 or a base) for every operand. */
void mcu_walk_next(const mcu_walk *w, int32_t *idx, int32_t *off);

/** Element size in bytes of an MCU_DT_* type. */
int32_t mcu_dtype_bytes(int32_t dtype);

/** Order key of an integer element: comparing keys as int64 orders the values (uint64 gets its top bit flipped). */
int64_t mcu_int_key(const void *x, int32_t dtype, int32_t i);

/** -1, 0 or 1 as a[i] is below, equal to or above b[j] (same dtype; comparisons with NaN give 0). */
int32_t mcu_elem_cmp(const void *a, int32_t i, const void *b, int32_t j, int32_t dtype);

#endif
