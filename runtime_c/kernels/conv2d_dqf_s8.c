#include "conv2d_dqf_s8.h"
#include <math.h>

/* onnxruntime's float Conv: im2col with K ordered (channel, kernel row, kernel column); within a K block one FMA
 * chain from 0, later blocks added with one rounding, then the bias, then QuantizeLinear (a true division). The
 * K block size depends on which output-pixel segment the pixel falls in (MLAS's per-thread split), so it is a
 * parameter computed by the compiler. Padded taps are zero in im2col and leave the FMA chain unchanged. */
void mcu_conv2d_dqf_s8(const mcu_conv2d_dqf_s8_params *p, const int8_t *x, const float *w, const float *bias,
                       int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group;
    const int32_t cout_g = g->c_out / g->group;
    const int32_t k_total = cin_g * g->k_h * g->k_w;
    const int32_t khw = g->k_h * g->k_w;
    const float lo = (float)(p->qmin - p->y_zp);
    const float hi = (float)(p->qmax - p->y_zp);
    int32_t n, oc, pix, seg, k0, k;
    for (n = 0; n < g->n; ++n) {
        for (oc = 0; oc < g->c_out; ++oc) {
            const int32_t c0 = (oc / cout_g) * cin_g;
            const float *wk = w + (size_t)oc * k_total;
            seg = 0;
            for (pix = 0; pix < g->h_out * g->w_out; ++pix) {
                const int32_t oy = pix / g->w_out;
                const int32_t ox = pix % g->w_out;
                float c = 0.0f;
                int32_t kblock;
                while (seg < p->n_seg - 1 && pix >= p->seg_end[seg]) {
                    ++seg;
                }
                kblock = p->seg_kblock[seg];
                for (k0 = 0; k0 < k_total; k0 += kblock) {
                    const int32_t k1 = k0 + kblock < k_total ? k0 + kblock : k_total;
                    float acc = 0.0f;
                    for (k = k0; k < k1; ++k) {
                        const int32_t ic = k / khw;
                        const int32_t iy = oy * g->stride_h - g->pad_t + ((k % khw) / g->k_w) * g->dil_h;
                        const int32_t ix = ox * g->stride_w - g->pad_l + (k % g->k_w) * g->dil_w;
                        if (iy >= 0 && iy < g->h_in && ix >= 0 && ix < g->w_in) {
                            const int8_t q = x[(((size_t)n * g->c_in + c0 + ic) * g->h_in + iy) * g->w_in + ix];
                            acc = fmaf(wk[k], (float)((int32_t)q - p->x_zp) * p->x_scale, acc);
                        }
                    }
                    c = (k0 == 0) ? acc : c + acc;
                }
                if (bias) {
                    c = c + bias[oc];
                }
                c = mcu_clampf(c / p->y_scale, lo, hi);
                y[((size_t)n * g->c_out + oc) * g->h_out * g->w_out + pix] = (int8_t)(mcu_round_even(c) + p->y_zp);
            }
        }
    }
}
