#include "conv2d_s8_im2col.h"
#include "conv2d_s8_columns.h"

void mcu_conv2d_s8_im2col(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch)
{
    MCU_CONV2D_S8_RQT_STORE(store);
    mcu_conv2d_s8_im2col_pairs(p, x, y, (int8_t *)scratch, store);
}
