#include "conv2d_f32_general.h"
#include <math.h>

/* Accumulates from zero over (input channel, kernel depth, row, column) with MCU_F32_MAC and adds the bias last:
 * the order of onnxruntime's im2col + SGEMM, so in the fused form results usually agree to the bit. Planes (n, oc) go in
 * order, each in row-major output order (the depthwise overlap margin in mcucomp/ops/_overlap.py relies on it). */
void mcu_conv2d_f32_general(const mcu_conv2d_f32_params *p, const float *x, const float *w, const float *bias,
                            float *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group;
    const int32_t cout_g = g->c_out / g->group;
    const int32_t k_vol = p->k_d * g->k_h * g->k_w;
    const size_t in_plane = (size_t)p->d_in * g->h_in * g->w_in;
    int32_t n, oc, oz, oy, ox, ic, kz, ky, kx;
    for (n = 0; n < g->n; ++n) {
        for (oc = 0; oc < g->c_out; ++oc) {
            const int32_t c0 = (oc / cout_g) * cin_g;
            const float *wk = w + (size_t)oc * cin_g * k_vol;
            float *yp = y + ((size_t)n * g->c_out + oc) * p->d_out * g->h_out * g->w_out;
            for (oz = 0; oz < p->d_out; ++oz) {
                for (oy = 0; oy < g->h_out; ++oy) {
                    for (ox = 0; ox < g->w_out; ++ox) {
                        float acc = 0.0f;
                        for (ic = 0; ic < cin_g; ++ic) {
                            const float *xc = x + ((size_t)n * g->c_in + c0 + ic) * in_plane;
                            for (kz = 0; kz < p->k_d; ++kz) {
                                const int32_t iz = oz * p->stride_d - p->pad_f + kz * p->dil_d;
                                const float *xz, *wz;
                                if (iz < 0 || iz >= p->d_in) {
                                    continue;
                                }
                                xz = xc + (size_t)iz * g->h_in * g->w_in;
                                wz = wk + (size_t)(ic * p->k_d + kz) * g->k_h * g->k_w;
                                for (ky = 0; ky < g->k_h; ++ky) {
                                    const int32_t iy = oy * g->stride_h - g->pad_t + ky * g->dil_h;
                                    if (iy < 0 || iy >= g->h_in) {
                                        continue;
                                    }
                                    for (kx = 0; kx < g->k_w; ++kx) {
                                        const int32_t ix = ox * g->stride_w - g->pad_l + kx * g->dil_w;
                                        if (ix >= 0 && ix < g->w_in) {
                                            acc = MCU_F32_MAC(acc, wz[ky * g->k_w + kx], xz[iy * g->w_in + ix]);
                                        }
                                    }
                                }
                            }
                        }
                        if (bias) {
                            acc += bias[oc];
                        }
                        yp[((size_t)oz * g->h_out + oy) * g->w_out + ox] =
                            acc < p->act_min ? p->act_min : (acc > p->act_max ? p->act_max : acc);
                    }
                }
            }
        }
    }
}
