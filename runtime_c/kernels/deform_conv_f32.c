#include "deform_conv_f32.h"
#include <math.h>

/* Plane xc (h rows of w) at (py, px), bilinear between the four surrounding pixels, those outside counting as 0
 * (ONNX GridSample, align_corners, zeros padding). Positions outside (-1, h) x (-1, w), NaN included, give 0 before
 * any float-to-int conversion. */
static float mcu_deform_conv_f32_sample(const float *xc, int32_t h, int32_t w, float py, float px)
{
    float fy, fx, dy, dx, v = 0.0f;
    int32_t y0, x0, i, j;
    if (!(py > -1.0f && py < (float)h && px > -1.0f && px < (float)w)) {
        return 0.0f;
    }
    fy = floorf(py);
    fx = floorf(px);
    dy = py - fy;
    dx = px - fx;
    y0 = (int32_t)fy;
    x0 = (int32_t)fx;
    for (i = 0; i < 2; ++i) {
        for (j = 0; j < 2; ++j) {
            const int32_t yy = y0 + i, xx = x0 + j;
            if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
                v += (i ? dy : 1.0f - dy) * (j ? dx : 1.0f - dx) * xc[yy * w + xx];
            }
        }
    }
    return v;
}

/* Accumulates from zero over (input channel, kernel row, kernel column) with MCU_F32_MAC, then adds the
 * bias, like conv2d_f32. */
void mcu_deform_conv_f32(const mcu_deform_conv_f32_params *p, const float *x, const float *w, const float *offset,
                         const float *bias, const float *mask, float *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group, cout_g = g->c_out / g->group;
    const int32_t taps = g->k_h * g->k_w, c_per_og = g->c_in / p->offset_group;
    const size_t plane_out = (size_t)g->h_out * g->w_out;
    int32_t n, oc, oy, ox, ic, ky, kx;
    for (n = 0; n < g->n; ++n) {
        for (oc = 0; oc < g->c_out; ++oc) {
            const int32_t c0 = (oc / cout_g) * cin_g;
            for (oy = 0; oy < g->h_out; ++oy) {
                for (ox = 0; ox < g->w_out; ++ox) {
                    const size_t at = (size_t)oy * g->w_out + ox;
                    float acc = 0.0f;
                    for (ic = 0; ic < cin_g; ++ic) {
                        const int32_t c = c0 + ic, og = c / c_per_og;
                        const float *xc = x + ((size_t)n * g->c_in + c) * g->h_in * g->w_in;
                        const float *wk = w + ((size_t)oc * cin_g + ic) * taps;
                        const size_t lane = (size_t)n * p->offset_group + og;
                        for (ky = 0; ky < g->k_h; ++ky) {
                            for (kx = 0; kx < g->k_w; ++kx) {
                                const int32_t k = ky * g->k_w + kx;
                                const float *off = offset + ((lane * taps + k) * 2) * plane_out + at;
                                const float py = (float)(oy * g->stride_h - g->pad_t + ky * g->dil_h) + off[0];
                                const float px = (float)(ox * g->stride_w - g->pad_l + kx * g->dil_w) + off[plane_out];
                                float v = mcu_deform_conv_f32_sample(xc, g->h_in, g->w_in, py, px);
                                if (mask) {
                                    v *= mask[(lane * taps + k) * plane_out + at];
                                }
                                acc = MCU_F32_MAC(acc, wk[k], v);
                            }
                        }
                    }
                    if (bias) {
                        acc += bias[oc];
                    }
                    y[((size_t)n * g->c_out + oc) * plane_out + at] = acc;
                }
            }
        }
    }
}
