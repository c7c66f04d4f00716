#include "conv2d_s8_general.h"
#include "conv2d_s8_window.h"

/* One output pixel of the general path, channel by channel, taps outside the input read as x_zp. xw: the image;
 * weights output channel by output channel, each as kernel row, kernel column, input channel of its group (group
 * g reads input channels g * cin_g ..). */
static void mcu_conv2d_s8_checked(const mcu_conv2d_s8_params *p, const mcu_requant *rq, int32_t plain,
                                  const int8_t *xw, int32_t iy0, int32_t ix0, int8_t *yp)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group, cout_g = g->c_out / g->group;
    const int32_t k = cin_g * g->k_h * g->k_w;
    int32_t oc, ky, kx, ic;
    for (oc = 0; oc < g->c_out; ++oc) {
        const int8_t *wk = p->w + (size_t)oc * k;
        const int32_t c0 = (oc / cout_g) * cin_g;
        int32_t acc = p->kbias[oc], xsum = 0;
        for (ky = 0; ky < g->k_h; ++ky) {
            const int32_t iy = iy0 + ky * g->dil_h;
            for (kx = 0; kx < g->k_w; ++kx, wk += cin_g) {
                const int32_t ix = ix0 + kx * g->dil_w;
                if (iy >= 0 && iy < g->h_in && ix >= 0 && ix < g->w_in) {
                    const int8_t *xt = xw + ((size_t)iy * g->w_in + ix) * g->c_in + c0;
                    for (ic = 0; ic < cin_g; ++ic) {
                        acc += (int32_t)xt[ic] * wk[ic];
                        xsum += xt[ic];
                    }
                } else {
                    for (ic = 0; ic < cin_g; ++ic) {
                        acc += p->x_zp * wk[ic];
                    }
                    xsum += p->x_zp * cin_g;
                }
            }
        }
        if (p->w_zp) {
            acc -= p->w_zp[oc] * xsum;
        }
        yp[oc] = mcu_conv2d_s8_requant(rq, plain, acc, oc);
    }
}

/* General path (weights: output channel, kernel row, kernel column, input channel of its group): output pixels one
 * by one, up or down as p->down says, all channels of one before the next (mcucomp/ops/_overlap.py
 * pixelwise_nhwc). */
void mcu_conv2d_s8_general(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch)
{
    const mcu_conv_geom *g = &p->g;
    const mcu_requant rq = p->rq;
    const int32_t pixels = g->n * g->h_out * g->w_out, plain = p->rq_plain;
    int32_t i, iy0, ix0;
    (void)scratch;
    for (i = 0; i < pixels; ++i) {
        const int32_t q = p->down ? pixels - 1 - i : i;
        const int32_t start = mcu_conv2d_s8_window_start(g, q, &iy0, &ix0);
        const int8_t *xw = x + (size_t)(start - iy0 * g->w_in - ix0) * g->c_in;
        mcu_conv2d_s8_checked(p, &rq, plain, xw, iy0, ix0, y + (size_t)q * g->c_out);
    }
}
