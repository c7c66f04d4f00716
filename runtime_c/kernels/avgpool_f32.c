#include "avgpool_f32.h"

/* Sums the window from zero row by row, left to right, then divides by the window count, as onnxruntime's
 * reference pooling does; the count is the window clipped to the padded input (count_include_pad) or to the
 * input (otherwise). */
void mcu_avgpool_f32(const mcu_avgpool_f32_params *p, const float *x, float *y)
{
    const mcu_conv_geom *g = &p->g;
    int32_t plane, oy, ox, iy, ix;
    for (plane = 0; plane < g->n * g->c_in; ++plane) {
        const float *xp = x + (size_t)plane * g->h_in * g->w_in;
        float *yp = y + (size_t)plane * g->h_out * g->w_out;
        for (oy = 0; oy < g->h_out; ++oy) {
            int32_t y0 = oy * g->stride_h - g->pad_t;
            int32_t y1 = y0 + g->k_h;
            int32_t pad_y1 = g->h_in + p->pad_b;
            int32_t hy;
            y1 = y1 < pad_y1 ? y1 : pad_y1;
            hy = y1 - y0;
            y0 = y0 > 0 ? y0 : 0;
            y1 = y1 < g->h_in ? y1 : g->h_in;
            for (ox = 0; ox < g->w_out; ++ox) {
                int32_t x0 = ox * g->stride_w - g->pad_l;
                int32_t x1 = x0 + g->k_w;
                int32_t pad_x1 = g->w_in + p->pad_r;
                int32_t wx, count;
                float sum = 0.0f;
                x1 = x1 < pad_x1 ? x1 : pad_x1;
                wx = x1 - x0;
                x0 = x0 > 0 ? x0 : 0;
                x1 = x1 < g->w_in ? x1 : g->w_in;
                for (iy = y0; iy < y1; ++iy) {
                    for (ix = x0; ix < x1; ++ix) {
                        sum += xp[iy * g->w_in + ix];
                    }
                }
                count = p->count_include_pad ? hy * wx : (y1 - y0) * (x1 - x0);
                yp[oy * g->w_out + ox] = sum / (float)count;
            }
        }
    }
}
