#ifndef MCU_CONCAT_H
#define MCU_CONCAT_H
#include "mcu_rt.h"

/* Every tensor viewed as [outer, chunk]: input i contributes in_bytes[i] contiguous bytes to each of the outer rows
 * of the output, in input order. */
typedef struct {
    int32_t outer, n_inputs;
    const int32_t *in_bytes;
} mcu_concat_params;

/** Concatenation along any axis of any number of inputs (xs[0 .. n_inputs-1]), any dtype. */
void mcu_concat(const mcu_concat_params *p, const void *const *xs, void *y);

#endif
