#include "conv2d_f32_pointwise.h"
#include "conv2d_f32_gemm.h"

/* Pixel block by pixel block: the block's c_in inputs go to the scratch (in the micro-kernel's column order) before
 * any of its outputs is written, and the block writes only its own pixels y[oc][px], so y may sit exactly on x (an
 * output lands on x[oc][px] of its own block, already copied, or past x). The input planes are the GEMM operand:
 * the copy only puts a block's pixels side by side. */
MCU_F32_GEMM_SCHED void mcu_conv2d_f32_pointwise(const mcu_conv2d_f32_params *p, const float *x, float *y,
                                                   void *scratch)
{
    const int32_t pixels = p->g.h_out * p->g.w_out;
    const int32_t c_in = p->g.c_in;
    float *col = (float *)scratch;
    int32_t px, ic, j;
    for (px = 0; px < pixels; px += MCU_F32_BLOCK_PX) {
        const int32_t n_px = pixels - px < MCU_F32_BLOCK_PX ? pixels - px : MCU_F32_BLOCK_PX;
        const float *xp = x + px;
        float *c = col;
        if (n_px == MCU_F32_BLOCK_PX) {
            for (ic = 0; ic < c_in; ++ic, xp += pixels, c += MCU_F32_BLOCK_PX) {
                c[0] = xp[0];
                c[1] = xp[1];
                c[2] = xp[2];
                c[3] = xp[3];
            }
        } else {
            for (ic = 0; ic < c_in; ++ic, xp += pixels, c += MCU_F32_BLOCK_PX) {
                for (j = 0; j < MCU_F32_BLOCK_PX; ++j) {
                    c[j] = j < n_px ? xp[j] : 0.0f;
                }
            }
        }
        mcu_conv2d_f32_columns(p, col, 0, c_in, y + px, (size_t)pixels, n_px);
    }
}
