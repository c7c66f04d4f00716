#include "avgpool_s8.h"

void mcu_avgpool_s8(const mcu_avgpool_s8_params *p, const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    int32_t n, c, oy, ox, ky, kx;
    for (n = 0; n < g->n; ++n) {
        for (c = 0; c < g->c_in; ++c) {
            const int8_t *xc = x + ((size_t)n * g->c_in + c) * g->h_in * g->w_in;
            int8_t *yc = y + ((size_t)n * g->c_in + c) * g->h_out * g->w_out;
            for (oy = 0; oy < g->h_out; ++oy) {
                for (ox = 0; ox < g->w_out; ++ox) {
                    int32_t isum = 0, count = 0, padded = 0;
                    float fsum = 0.0f;
                    for (ky = 0; ky < g->k_h; ++ky) {
                        const int32_t iy = oy * g->stride_h - g->pad_t + ky * g->dil_h;
                        for (kx = 0; kx < g->k_w; ++kx) {
                            const int32_t ix = ox * g->stride_w - g->pad_l + kx * g->dil_w;
                            if (iy >= 0 && iy < g->h_in && ix >= 0 && ix < g->w_in) {
                                const int32_t q = (int32_t)xc[iy * g->w_in + ix] - p->x_zp;
                                isum += q;
                                fsum = fsum + (float)q * p->x_scale;
                                ++count;
                            }
                            padded += (iy < g->h_in + p->pad_b && ix < g->w_in + p->pad_r);
                        }
                    }
                    if (p->count_mode == MCU_AVGPOOL_S8_COUNT_KERNEL) {
                        count = g->k_h * g->k_w;
                    } else if (p->count_mode == MCU_AVGPOOL_S8_COUNT_PADDED) {
                        count = padded;
                    }
                    if (p->mode == MCU_AVGPOOL_S8_GLOBAL_INT) {
                        yc[oy * g->w_out + ox] = (int8_t)mcu_requant_apply(&p->rq, isum, 0);
                    } else {
                        const float v = mcu_clampf((fsum / (float)count) / p->y_scale, (float)(p->rq.qmin - p->rq.zp),
                                                   (float)(p->rq.qmax - p->rq.zp));
                        yc[oy * g->w_out + ox] = (int8_t)(mcu_round_even(v) + p->rq.zp);
                    }
                }
            }
        }
    }
}
