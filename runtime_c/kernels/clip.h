#ifndef MCU_CLIP_H
#define MCU_CLIP_H
#include "mcu_rt.h"

/* dtype: MCU_DT_* of x, the bounds and y; count elements. */
typedef struct {
    int32_t dtype;
    int32_t count;
} mcu_clip_params;

/** y = min(max(x, lo[0]), hi[0]); a NULL bound is the type's lowest or highest value (floats: +-FLT_MAX), lo > hi
 *  gives hi, a NaN x stays NaN. */
void mcu_clip(const mcu_clip_params *p, const void *x, const void *lo, const void *hi, void *y);

#endif
