#ifndef MCU_TRANSPOSE_H
#define MCU_TRANSPOSE_H
#include "mcu_rt.h"

/* The output is written in order; walk.dims are the output dims and walk.a_strides the input element strides of
 * each output dim (b_strides unused). */
typedef struct {
    int32_t count, elem_bytes;
    mcu_bcast walk;
} mcu_transpose_params;

/** Permutes the dims of a tensor of any dtype (rank <= MCU_MAX_RANK after merging). */
void mcu_transpose(const mcu_transpose_params *p, const void *x, void *y);

#endif
