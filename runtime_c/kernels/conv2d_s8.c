#include "conv2d_s8.h"

/* Integer accumulation is exact, so the loop order is free; padded taps hold x_zp and contribute nothing. */
void mcu_conv2d_s8(const mcu_conv2d_s8_params *p, const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group;
    const int32_t cout_g = g->c_out / g->group;
    int32_t n, oc, oy, ox, ic, ky, kx;
    for (n = 0; n < g->n; ++n) {
        for (oc = 0; oc < g->c_out; ++oc) {
            const int32_t c0 = (oc / cout_g) * cin_g;
            const int32_t wzp = p->w_zp ? p->w_zp[oc] : 0;
            const int8_t *wk = w + (size_t)oc * cin_g * g->k_h * g->k_w;
            for (oy = 0; oy < g->h_out; ++oy) {
                for (ox = 0; ox < g->w_out; ++ox) {
                    int32_t acc = bias ? bias[oc] : 0;
                    for (ic = 0; ic < cin_g; ++ic) {
                        const int8_t *xc = x + ((size_t)n * g->c_in + c0 + ic) * g->h_in * g->w_in;
                        for (ky = 0; ky < g->k_h; ++ky) {
                            const int32_t iy = oy * g->stride_h - g->pad_t + ky * g->dil_h;
                            if (iy < 0 || iy >= g->h_in) {
                                continue;
                            }
                            for (kx = 0; kx < g->k_w; ++kx) {
                                const int32_t ix = ox * g->stride_w - g->pad_l + kx * g->dil_w;
                                if (ix >= 0 && ix < g->w_in) {
                                    acc += ((int32_t)xc[iy * g->w_in + ix] - p->x_zp) *
                                           ((int32_t)wk[(ic * g->k_h + ky) * g->k_w + kx] - wzp);
                                }
                            }
                        }
                    }
                    y[(((size_t)n * g->c_out + oc) * g->h_out + oy) * g->w_out + ox] =
                        (int8_t)mcu_requant_apply(&p->rq, acc, oc);
                }
            }
        }
    }
}
