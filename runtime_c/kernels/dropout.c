#include "dropout.h"

void mcu_dropout(const mcu_dropout_params *p, const void *x, void *y, void *mask)
{
    memmove(y, x, (size_t)p->nbytes);
    memset(mask, 1, (size_t)p->mask_count);
}
