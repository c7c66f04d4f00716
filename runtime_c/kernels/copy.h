#ifndef MCU_COPY_H
#define MCU_COPY_H
#include "mcu_rt.h"

typedef struct {
    int32_t nbytes;
} mcu_copy_params;

/** Byte copy of a whole tensor (any dtype); used where an output cannot share its input's storage. */
void mcu_copy(const mcu_copy_params *p, const void *x, void *y);

#endif
