#include "conv_integer.h"

/* Element i of an int8 or uint8 tensor. */
static int32_t mcu_conv_integer_load(const void *v, int32_t dtype, size_t i)
{
    return dtype == MCU_DT_INT8 ? (int32_t)((const int8_t *)v)[i] : (int32_t)((const uint8_t *)v)[i];
}

/* Products accumulate in uint32, whose wrap-around is defined, and are read back as int32: the two's complement
 * result of onnxruntime's int32 accumulation without signed-overflow undefined behaviour. */
void mcu_conv_integer(const mcu_conv_integer_params *p, const void *x, const void *w, const void *x_zp,
                      const void *w_zp, int32_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group;
    const int32_t cout_g = g->c_out / g->group;
    const int32_t k_vol = p->k_d * g->k_h * g->k_w;
    const size_t in_plane = (size_t)p->d_in * g->h_in * g->w_in;
    const int32_t xz = x_zp ? mcu_conv_integer_load(x_zp, p->x_dtype, 0) : 0;
    size_t q = 0;
    int32_t n, oc, oz, oy, ox, ic, kz, ky, kx;
    for (n = 0; n < g->n; ++n) {
        for (oc = 0; oc < g->c_out; ++oc) {
            const int32_t c0 = (oc / cout_g) * cin_g;
            const int32_t wz = p->w_zp_count ? mcu_conv_integer_load(w_zp, p->w_dtype, p->w_zp_count > 1 ? oc : 0) : 0;
            for (oz = 0; oz < p->d_out; ++oz) {
                for (oy = 0; oy < g->h_out; ++oy) {
                    for (ox = 0; ox < g->w_out; ++ox) {
                        uint32_t acc = 0;
                        for (ic = 0; ic < cin_g; ++ic) {
                            const size_t xc = ((size_t)n * g->c_in + c0 + ic) * in_plane;
                            const size_t wc = ((size_t)oc * cin_g + ic) * k_vol;
                            for (kz = 0; kz < p->k_d; ++kz) {
                                const int32_t iz = oz * p->stride_d - p->pad_f + kz * p->dil_d;
                                if (iz < 0 || iz >= p->d_in) {
                                    continue;
                                }
                                for (ky = 0; ky < g->k_h; ++ky) {
                                    const int32_t iy = oy * g->stride_h - g->pad_t + ky * g->dil_h;
                                    if (iy < 0 || iy >= g->h_in) {
                                        continue;
                                    }
                                    for (kx = 0; kx < g->k_w; ++kx) {
                                        const int32_t ix = ox * g->stride_w - g->pad_l + kx * g->dil_w;
                                        int32_t xv, wv;
                                        if (ix < 0 || ix >= g->w_in) {
                                            continue;
                                        }
                                        xv = mcu_conv_integer_load(
                                            x, p->x_dtype, xc + ((size_t)iz * g->h_in + iy) * g->w_in + ix);
                                        wv = mcu_conv_integer_load(
                                            w, p->w_dtype, wc + ((size_t)kz * g->k_h + ky) * g->k_w + kx);
                                        acc += (uint32_t)((xv - xz) * (wv - wz));
                                    }
                                }
                            }
                        }
                        y[q++] = acc > (uint32_t)INT32_MAX ? -(int32_t)(~acc) - 1 : (int32_t)acc;
                    }
                }
            }
        }
    }
}
