#ifndef MCU_ARGMINMAX_H
#define MCU_ARGMINMAX_H
#include "mcu_rt.h"
#include "strided.h"

/* The input viewed as [outer, axis_len, inner]; the int64 output as [outer, inner]. dtype: MCU_DT_* of the input.
 * is_max: ArgMax (else ArgMin); select_last: ties go to the last index (else the first). */
typedef struct {
    int32_t is_max, select_last, dtype;
    int32_t outer, axis_len, inner;
} mcu_argminmax_params;

/** ArgMax / ArgMin along the middle dim. */
void mcu_argminmax(const mcu_argminmax_params *p, const void *x, int64_t *y);

#endif
