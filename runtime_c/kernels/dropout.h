#ifndef MCU_DROPOUT_H
#define MCU_DROPOUT_H
#include "mcu_rt.h"

typedef struct {
    int32_t nbytes, mask_count;
} mcu_dropout_params;

/** Inference-mode Dropout with its mask output: y is a copy of x, every mask element is true (1). */
void mcu_dropout(const mcu_dropout_params *p, const void *x, void *y, void *mask);

#endif
