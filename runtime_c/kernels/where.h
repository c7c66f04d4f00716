#ifndef MCU_WHERE_H
#define MCU_WHERE_H
#include "mcu_rt.h"

/* elem_size: bytes per element of X, Y and out; count output elements; xy walks X (a) and Y (b)
 * into out, cond walks the condition (a) over the same dims (its b strides are 0). */
typedef struct {
    int32_t elem_size;
    int32_t count;
    mcu_bcast xy;
    mcu_bcast cond;
} mcu_where_params;

/** out = c ? x : y element-wise with numpy broadcasting of all three inputs. */
void mcu_where(const mcu_where_params *p, const uint8_t *c, const void *x, const void *y, void *out);

#endif
