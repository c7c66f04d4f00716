#include "conv_transpose_f32.h"
#include <math.h>

/* The input position that kernel tap k sends to output position o along one axis, or -1 when none does:
 * o = i * stride - pad + k * dil. */
static int32_t mcu_conv_transpose_f32_src(int32_t o, int32_t k, int32_t stride, int32_t dil, int32_t pad,
                                          int32_t len)
{
    const int32_t t = o + pad - k * dil;
    if (t < 0 || t % stride != 0 || t / stride >= len) {
        return -1;
    }
    return t / stride;
}

/* Output-stationary: each output sums, over the kernel taps (depth, row, column) that reach it, the fused
 * multiply-add over the group's input channels, then adds the bias. That is the order of onnxruntime's GEMM +
 * col2im (col2im adds the per-tap channel sums into a zeroed output in tap order). */
void mcu_conv_transpose_f32(const mcu_conv_transpose_f32_params *p, const float *x, const float *w,
                            const float *bias, float *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group;
    const int32_t cout_g = g->c_out / g->group;
    const int32_t k_vol = p->k_d * g->k_h * g->k_w;
    const size_t plane_in = (size_t)p->d_in * g->h_in * g->w_in;
    size_t q = 0;
    int32_t n, oc, oz, oy, ox, kz, ky, kx, ic;
    for (n = 0; n < g->n; ++n) {
        for (oc = 0; oc < g->c_out; ++oc) {
            const int32_t c0 = (oc / cout_g) * cin_g;
            const float *wm = w + ((size_t)c0 * cout_g + oc % cout_g) * k_vol;
            const float *xn = x + ((size_t)n * g->c_in + c0) * plane_in;
            for (oz = 0; oz < p->d_out; ++oz) {
                for (oy = 0; oy < g->h_out; ++oy) {
                    for (ox = 0; ox < g->w_out; ++ox) {
                        float acc = 0.0f;
                        for (kz = 0; kz < p->k_d; ++kz) {
                            const int32_t iz = mcu_conv_transpose_f32_src(oz, kz, p->stride_d, p->dil_d, p->pad_f,
                                                                          p->d_in);
                            if (iz < 0) {
                                continue;
                            }
                            for (ky = 0; ky < g->k_h; ++ky) {
                                const int32_t iy = mcu_conv_transpose_f32_src(oy, ky, g->stride_h, g->dil_h, g->pad_t,
                                                                              g->h_in);
                                if (iy < 0) {
                                    continue;
                                }
                                for (kx = 0; kx < g->k_w; ++kx) {
                                    const int32_t ix = mcu_conv_transpose_f32_src(ox, kx, g->stride_w, g->dil_w,
                                                                                  g->pad_l, g->w_in);
                                    size_t tap, at;
                                    float s = 0.0f;
                                    if (ix < 0) {
                                        continue;
                                    }
                                    tap = (size_t)(kz * g->k_h + ky) * g->k_w + kx;
                                    at = ((size_t)iz * g->h_in + iy) * g->w_in + ix;
                                    for (ic = 0; ic < cin_g; ++ic) {
                                        s = MCU_F32_MAC(s, wm[(size_t)ic * cout_g * k_vol + tap],
                                                        xn[(size_t)ic * plane_in + at]);
                                    }
                                    acc += s;
                                }
                            }
                        }
                        if (bias) {
                            acc += bias[oc];
                        }
                        y[q++] = acc;
                    }
                }
            }
        }
    }
}
