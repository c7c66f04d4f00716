#ifndef MCU_EINSUM_H
#define MCU_EINSUM_H
#include "mcu_rt.h"
#include "strided.h"

/* One- or two-operand Einsum. `outer` walks the output labels (the output is written in its order), `inner` the
 * summed labels; in both, strides[0] is operand a's element step and strides[1] operand b's (a label repeated in one
 * operand has the sum of its steps: a diagonal). dtype: MCU_DT_* of operands and output. */
typedef struct {
    int32_t dtype, operands;
    mcu_walk outer, inner;
} mcu_einsum_params;

/** y[out] = sum over the summed labels of a[...] (times b[...] with two operands); b is NULL with one operand. */
void mcu_einsum(const mcu_einsum_params *p, const void *a, const void *b, void *y);

#endif
