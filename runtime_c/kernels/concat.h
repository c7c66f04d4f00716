#ifndef MCU_CONCAT_H
#define MCU_CONCAT_H
#include "mcu_rt.h"

/** Most inputs one concat call takes (a constraint of the concat op rejects wider Concats). */
#define MCU_CONCAT_MAX_INPUTS 8

/* Every tensor viewed as [outer, chunk]: input i contributes in_bytes[i] contiguous bytes to each of the outer
 * rows of the output, which are out_bytes long. Unused input slots are NULL with in_bytes 0. */
typedef struct {
    int32_t outer, out_bytes, n_inputs;
    int32_t in_bytes[MCU_CONCAT_MAX_INPUTS];
} mcu_concat_params;

/** Concatenation along any axis, any dtype. */
void mcu_concat(const mcu_concat_params *p, const void *x0, const void *x1, const void *x2, const void *x3,
                const void *x4, const void *x5, const void *x6, const void *x7, void *y);

#endif
