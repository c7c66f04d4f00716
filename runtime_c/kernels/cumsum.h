#ifndef MCU_CUMSUM_H
#define MCU_CUMSUM_H
#include "mcu_rt.h"

/* The tensor viewed as [outer, len, inner]; sums run along len, from the first element (from the last when
 * reverse), in that order. exclusive: each output leaves out its own element (the first one is 0). Integer sums
 * wrap modulo 2^bits (computed unsigned). dtype is the MCU_DT_* code: float, double, (u)int32, (u)int64. */
typedef struct {
    int32_t outer, len, inner, exclusive, reverse, dtype;
    int32_t product; /* 1: running products (CumProd, exclusive ones start at 1) instead of sums */
} mcu_cumsum_params;

/** Cumulative sum (or product) along one axis. */
void mcu_cumsum(const mcu_cumsum_params *p, const void *x, void *y);

#endif
