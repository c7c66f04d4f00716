#ifndef MCU_TRILU_H
#define MCU_TRILU_H
#include "mcu_rt.h"

/* The input viewed as [batches, rows, cols]. upper: element (r, c) is kept when c - r >= k, else zero; lower: kept
 * when c - r <= k. k is clamped to [-rows - 1, cols + 1] by the compiler (a wider k changes nothing). */
typedef struct {
    int32_t batches, rows, cols, k, upper, elem_bytes;
} mcu_trilu_params;

/** Upper or lower triangle of the last two dims, any dtype (zero is all-zero bytes). */
void mcu_trilu(const mcu_trilu_params *p, const void *x, void *y);

#endif
