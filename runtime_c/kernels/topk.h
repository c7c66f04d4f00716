#ifndef MCU_TOPK_H
#define MCU_TOPK_H
#include "mcu_rt.h"
#include "strided.h"

/* The input viewed as [outer, axis_len, inner], the outputs as [outer, k, inner]. dtype: MCU_DT_* of the input and
 * values; largest: the k largest in descending order (else the k smallest, ascending). Equal values keep their
 * input order (lower index first), as ONNX TopK defines. */
typedef struct {
    int32_t largest, dtype, elem_bytes;
    int32_t outer, axis_len, inner, k;
} mcu_topk_params;

/** TopK along the middle dim: values and their int64 indices. */
void mcu_topk(const mcu_topk_params *p, const void *x, void *values, int64_t *indices);

#endif
