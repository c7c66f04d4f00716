#ifndef MCU_FILL_H
#define MCU_FILL_H
#include "mcu_rt.h"

/* The output viewed as [rows, cols]: element (r, c) is `diag` when has_diag and c - r == k, else `value` (both the
 * bytes of one element of the output dtype). */
typedef struct {
    int32_t rows, cols, k, has_diag, elem_bytes;
    uint8_t value[8];
    uint8_t diag[8];
} mcu_fill_params;

/** A constant tensor (ConstantOfShape) or a constant with a shifted diagonal (EyeLike), any dtype. */
void mcu_fill(const mcu_fill_params *p, void *y);

#endif
