#include "conv2d_f32.h"
#include <math.h>

/* Accumulates from zero over (input channel, kernel row, kernel column) with fused multiply-adds and adds the
 * bias last: the order of onnxruntime's im2col + SGEMM, so results usually agree to the bit. */
void mcu_conv2d_f32(const mcu_conv2d_f32_params *p, const float *x, const float *w, const float *bias, float *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group;
    const int32_t cout_g = g->c_out / g->group;
    int32_t n, oc, oy, ox, ic, ky, kx;
    for (n = 0; n < g->n; ++n) {
        for (oc = 0; oc < g->c_out; ++oc) {
            const int32_t c0 = (oc / cout_g) * cin_g;
            const float *wk = w + (size_t)oc * cin_g * g->k_h * g->k_w;
            for (oy = 0; oy < g->h_out; ++oy) {
                for (ox = 0; ox < g->w_out; ++ox) {
                    float acc = 0.0f;
                    for (ic = 0; ic < cin_g; ++ic) {
                        const float *xc = x + ((size_t)n * g->c_in + c0 + ic) * g->h_in * g->w_in;
                        for (ky = 0; ky < g->k_h; ++ky) {
                            const int32_t iy = oy * g->stride_h - g->pad_t + ky * g->dil_h;
                            if (iy < 0 || iy >= g->h_in) {
                                continue;
                            }
                            for (kx = 0; kx < g->k_w; ++kx) {
                                const int32_t ix = ox * g->stride_w - g->pad_l + kx * g->dil_w;
                                if (ix >= 0 && ix < g->w_in) {
                                    acc = fmaf(wk[(ic * g->k_h + ky) * g->k_w + kx], xc[iy * g->w_in + ix], acc);
                                }
                            }
                        }
                    }
                    if (bias) {
                        acc += bias[oc];
                    }
                    y[(((size_t)n * g->c_out + oc) * g->h_out + oy) * g->w_out + ox] =
                        acc < p->act_min ? p->act_min : (acc > p->act_max ? p->act_max : acc);
                }
            }
        }
    }
}
