#ifndef MCU_COMPARE_H
#define MCU_COMPARE_H
#include "mcu_rt.h"

enum { MCU_COMPARE_LT = 1, MCU_COMPARE_EQ = 2, MCU_COMPARE_GT = 4 };

/* mask: the MCU_COMPARE_* outcomes that give true (Less 1, Equal 2, LessOrEqual 3, Greater 4, GreaterOrEqual 6);
 * dtype: MCU_DT_* of a and b; count output elements; bc walks a and b into y. */
typedef struct {
    int32_t mask;
    int32_t dtype;
    int32_t count;
    mcu_bcast bc;
} mcu_compare_params;

/** y = (a cmp b) as bool 0/1 with numpy broadcasting; comparisons with NaN are false. */
void mcu_compare(const mcu_compare_params *p, const void *a, const void *b, uint8_t *y);

#endif
