#include "conv_transpose_s8.h"

/* The input position that kernel tap k sends to output position o along one axis, or -1 when none does:
 * o = i * stride - pad + k * dil. */
static int32_t src_index(int32_t o, int32_t k, int32_t stride, int32_t dil, int32_t pad, int32_t len)
{
    const int32_t t = o + pad - k * dil;
    if (t < 0 || t % stride != 0 || t / stride >= len) {
        return -1;
    }
    return t / stride;
}

/* Output-stationary: each output sums, over the kernel taps that reach it, the products over the group's input
 * channels (exact in int32, so the order does not matter), adds the bias and requantizes. Element (n, c, pixel) of
 * x and y is at n * batch + c * channel + pixel * pixel_stride, per layout. */
void mcu_conv_transpose_s8(const mcu_conv_transpose_s8_params *p, const int8_t *x, const int8_t *w,
                           const int32_t *bias, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group;
    const int32_t cout_g = g->c_out / g->group;
    const int32_t k_vol = g->k_h * g->k_w;
    const size_t plane_in = (size_t)g->h_in * g->w_in, plane_out = (size_t)g->h_out * g->w_out;
    const size_t x_batch = plane_in * g->c_in, y_batch = plane_out * g->c_out;
    const size_t x_chan = p->nhwc ? 1 : plane_in, x_pix = p->nhwc ? (size_t)g->c_in : 1;
    const size_t y_chan = p->nhwc ? 1 : plane_out, y_pix = p->nhwc ? (size_t)g->c_out : 1;
    int32_t n, oc, oy, ox, ky, kx, ic;
    for (n = 0; n < g->n; ++n) {
        for (oc = 0; oc < g->c_out; ++oc) {
            const int32_t c0 = (oc / cout_g) * cin_g;
            const int32_t wz = p->w_zp ? p->w_zp[oc] : 0;
            const int8_t *wm = w + ((size_t)c0 * cout_g + oc % cout_g) * k_vol;
            const int8_t *xn = x + (size_t)n * x_batch + (size_t)c0 * x_chan;
            int8_t *yc = y + (size_t)n * y_batch + (size_t)oc * y_chan;
            for (oy = 0; oy < g->h_out; ++oy) {
                for (ox = 0; ox < g->w_out; ++ox) {
                    int32_t acc = bias ? bias[oc] : 0;
                    for (ky = 0; ky < g->k_h; ++ky) {
                        const int32_t iy = src_index(oy, ky, g->stride_h, g->dil_h, g->pad_t, g->h_in);
                        if (iy < 0) {
                            continue;
                        }
                        for (kx = 0; kx < g->k_w; ++kx) {
                            const int32_t ix = src_index(ox, kx, g->stride_w, g->dil_w, g->pad_l, g->w_in);
                            const int8_t *xt, *wt;
                            if (ix < 0) {
                                continue;
                            }
                            xt = xn + ((size_t)iy * g->w_in + ix) * x_pix;
                            wt = wm + (size_t)ky * g->k_w + kx;
                            for (ic = 0; ic < cin_g; ++ic) {
                                acc += ((int32_t)xt[(size_t)ic * x_chan] - p->x_zp) *
                                       ((int32_t)wt[(size_t)ic * cout_g * k_vol] - wz);
                            }
                        }
                    }
                    yc[((size_t)oy * g->w_out + ox) * y_pix] = (int8_t)mcu_requant_apply(&p->rq, acc, oc);
                }
            }
        }
    }
}
