#ifndef MCU_SPLIT_H
#define MCU_SPLIT_H
#include "mcu_rt.h"

/* The input viewed as [outer, chunk]: output i takes out_bytes[i] contiguous bytes from each of the outer rows of
 * the input, in output order (the inverse of mcu_concat). */
typedef struct {
    int32_t outer, n_outputs;
    const int32_t *out_bytes;
} mcu_split_params;

/** Split along any axis into any number of outputs (ys[0 .. n_outputs-1]), any dtype. */
void mcu_split(const mcu_split_params *p, const void *x, void *const *ys);

#endif
