#include "conv2d_dqf_s8.h"

/* im2col of one output pixel: the dequantized taps in K order (channel, kernel row, kernel column), 0 in the
 * padding as in MLAS's im2col buffer. */
static void dqf_gather(const mcu_conv2d_dqf_s8_params *p, const int8_t *xg, int32_t oy, int32_t ox, float *col)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group;
    int32_t ic, ky, kx;
    for (ic = 0; ic < cin_g; ++ic) {
        const int8_t *xc = xg + (size_t)ic * g->h_in * g->w_in;
        for (ky = 0; ky < g->k_h; ++ky) {
            const int32_t iy = oy * g->stride_h - g->pad_t + ky * g->dil_h;
            for (kx = 0; kx < g->k_w; ++kx) {
                const int32_t ix = ox * g->stride_w - g->pad_l + kx * g->dil_w;
                *col++ = (iy >= 0 && iy < g->h_in && ix >= 0 && ix < g->w_in)
                             ? (float)((int32_t)xc[iy * g->w_in + ix] - p->x_zp) * p->x_scale
                             : 0.0f;
            }
        }
    }
}

/* onnxruntime's float Conv on DequantizeLinear outputs: im2col dot products in the order of the MLAS kernel it
 * picks (a compiler-computed parameter, like the K block of each output-pixel segment, which follows MLAS's
 * per-thread split), then the bias, then QuantizeLinear (a true division). */
void mcu_conv2d_dqf_s8(const mcu_conv2d_dqf_s8_params *p, const int8_t *x, const float *w, const float *bias,
                       int8_t *y, void *scratch)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group;
    const int32_t cout_g = g->c_out / g->group;
    const int32_t k_total = cin_g * g->k_h * g->k_w;
    const int32_t n_pix = g->h_out * g->w_out;
    const float lo = (float)(p->qmin - p->y_zp);
    const float hi = (float)(p->qmax - p->y_zp);
    float *col = (float *)scratch;
    int32_t n, oc, pix, seg, seg_start;
    for (n = 0; n < g->n; ++n) {
        for (oc = 0; oc < g->c_out; ++oc) {
            const int8_t *xg = x + ((size_t)n * g->c_in + (size_t)(oc / cout_g) * cin_g) * g->h_in * g->w_in;
            const float *wk = w + (size_t)oc * k_total;
            seg = 0;
            seg_start = 0;
            for (pix = 0; pix < n_pix; ++pix) {
                float c;
                while (seg < p->n_seg - 1 && pix >= p->seg_end[seg]) {
                    seg_start = p->seg_end[seg++];
                }
                dqf_gather(p, xg, pix / g->w_out, pix % g->w_out, col);
                if (p->order == MCU_MLAS_M1) {
                    c = mcu_mlas_dot_m1(wk, col, k_total, 0.0f);
                } else if (p->order == MCU_MLAS_M1_TRANSB) {
                    c = mcu_mlas_dot_m1_transb(wk, col, k_total, pix - seg_start, p->seg_end[seg] - seg_start, 0.0f);
                } else {
                    c = mcu_mlas_dot_fma(wk, col, k_total, p->seg_kblock[seg], 0.0f);
                }
                if (bias) {
                    c = c + bias[oc];
                }
                c = mcu_clampf(c / p->y_scale, lo, hi);
                y[((size_t)n * g->c_out + oc) * n_pix + pix] = (int8_t)(mcu_round_even(c) + p->y_zp);
            }
        }
    }
}
