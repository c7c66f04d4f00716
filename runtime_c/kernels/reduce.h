#ifndef MCU_REDUCE_H
#define MCU_REDUCE_H
#include "mcu_rt.h"
#include "strided.h"

/* ONNX Reduce* (and GlobalMaxPool as a max over the spatial dims). */
#define MCU_REDUCE_SUM 0
#define MCU_REDUCE_MEAN 1
#define MCU_REDUCE_MAX 2
#define MCU_REDUCE_MIN 3
#define MCU_REDUCE_PROD 4
#define MCU_REDUCE_L1 5
#define MCU_REDUCE_L2 6
#define MCU_REDUCE_SUM_SQUARE 7
#define MCU_REDUCE_LOG_SUM 8
#define MCU_REDUCE_LOG_SUM_EXP 9

/* `outer` walks the kept dims and `inner` the reduced dims, both with the input's element steps in strides[0];
 * the output is written in the order of `outer`. dtype is an MCU_DT_* code (input and output). */
typedef struct {
    int32_t op, dtype;
    mcu_walk outer, inner;
} mcu_reduce_params;

/** Reduce x over the inner dims into y, one value per outer position. */
void mcu_reduce(const mcu_reduce_params *p, const void *x, void *y);

#endif
