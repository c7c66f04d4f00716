#include "maxpool_f32.h"
#include <float.h>

/* Padding never wins: only taps inside the input are compared, starting from -FLT_MAX like onnxruntime. */
void mcu_maxpool_f32(const mcu_maxpool_f32_params *p, const float *x, float *y)
{
    const mcu_conv_geom *g = &p->g;
    int32_t plane, oy, ox, ky, kx;
    for (plane = 0; plane < g->n * g->c_in; ++plane) {
        const float *xp = x + (size_t)plane * g->h_in * g->w_in;
        float *yp = y + (size_t)plane * g->h_out * g->w_out;
        for (oy = 0; oy < g->h_out; ++oy) {
            for (ox = 0; ox < g->w_out; ++ox) {
                float best = -FLT_MAX;
                for (ky = 0; ky < g->k_h; ++ky) {
                    const int32_t iy = oy * g->stride_h - g->pad_t + ky * g->dil_h;
                    if (iy < 0 || iy >= g->h_in) {
                        continue;
                    }
                    for (kx = 0; kx < g->k_w; ++kx) {
                        const int32_t ix = ox * g->stride_w - g->pad_l + kx * g->dil_w;
                        if (ix >= 0 && ix < g->w_in && xp[iy * g->w_in + ix] > best) {
                            best = xp[iy * g->w_in + ix];
                        }
                    }
                }
                yp[oy * g->w_out + ox] = best;
            }
        }
    }
}
