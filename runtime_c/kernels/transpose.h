#ifndef MCU_TRANSPOSE_H
#define MCU_TRANSPOSE_H
#include "mcu_rt.h"

/** Most loop levels of a walk: two per dim of a rank-6 Tile. */
#define MCU_TRANSPOSE_MAX_DIMS 12

/* A strided view copy. The output is written in order, as dims[0] x ... x dims[rank-1]; the input element read for
 * output index (i0, ..., i{rank-1}) is offset + sum(i_d * strides[d]). Strides may be 0 (broadcast: Expand, Tile)
 * or negative (Slice with negative steps); Transpose, DepthToSpace and SpaceToDepth permute them. */
typedef struct {
    int32_t count, elem_bytes, offset, rank;
    int32_t dims[MCU_TRANSPOSE_MAX_DIMS];
    int32_t strides[MCU_TRANSPOSE_MAX_DIMS];
} mcu_transpose_params;

/** Strided copy of a tensor of any dtype (Transpose, Slice, Expand, Tile, DepthToSpace, SpaceToDepth). */
void mcu_transpose(const mcu_transpose_params *p, const void *x, void *y);

#endif
