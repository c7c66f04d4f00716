#include "avgpool_f32.h"
#include "mcu_math.h"
#include <math.h>

/* How many taps of one window axis (first tap at `start`) lie inside the input [0, len) and inside the padded
 * extent [start, len + pad_end) that count_include_pad counts (onnxruntime clips windows there). */
static void mcu_avgpool_f32_axis(int32_t start, int32_t k, int32_t dil, int32_t len, int32_t pad_end,
                                 int32_t *inside, int32_t *padded)
{
    int32_t t;
    *inside = 0;
    *padded = 0;
    for (t = 0; t < k; ++t) {
        const int32_t i = start + t * dil;
        *inside += i >= 0 && i < len;
        *padded += i < len + pad_end;
    }
}

/* |v|^p for LpPool's integer p >= 1, by repeated multiplication. */
static float mcu_avgpool_f32_powi(float v, int32_t p)
{
    const float a = fabsf(v);
    float r = a;
    int32_t e;
    for (e = 1; e < p; ++e) {
        r *= a;
    }
    return r;
}

/* The average of each whole plane (the window covers the input exactly: a global pool, no pads, one output per
 * plane): the same sum from zero in row-major order as the window loop, as a straight pass over the plane, four
 * elements per trip (their loads grouped, the additions still one after another), divided by the plane's size. */
static void mcu_avgpool_f32_planes(int32_t planes, int32_t size, const float *x, float *y)
{
    int32_t plane, i;
    for (plane = 0; plane < planes; ++plane) {
        float sum = 0.0f;
        for (i = 0; i + 4 <= size; i += 4, x += 4) {
            float v0 = x[0], v1 = x[1], v2 = x[2], v3 = x[3];
            MCU_F32_LOADS_FIRST(v0, v1, v2, v3);
            sum += v0;
            sum += v1;
            sum += v2;
            sum += v3;
        }
        for (; i < size; ++i, ++x) {
            sum += x[0];
        }
        y[plane] = sum / (float)size;
    }
}

/* Sums the window's taps inside the input from zero in row-major window order (|x|^p for LpPool), then divides by
 * the tap count, as onnxruntime's reference pooling does (or takes the p-th root). The count is the taps inside the
 * padded input (count_include_pad) or inside the input (otherwise). Planes (n, c) go in order, each in row-major
 * output order, every output written after all its reads (the overlap margin in mcucomp/ops/_overlap.py relies on
 * it). */
void mcu_avgpool_f32(const mcu_avgpool_f32_params *p, const float *x, float *y)
{
    const mcu_conv_geom *g = &p->g;
    const size_t plane_in = (size_t)p->d_in * g->h_in * g->w_in;
    size_t q = 0;
    int32_t plane, oz, oy, ox, kz, ky, kx;
    if (p->p == 0 && p->d_out == 1 && g->h_out == 1 && g->w_out == 1 && p->k_d == p->d_in && g->k_h == g->h_in &&
        g->k_w == g->w_in && (p->dil_d | g->dil_h | g->dil_w) == 1 &&
        (p->pad_f | g->pad_t | g->pad_l | p->pad_bk | p->pad_b | p->pad_r) == 0) {
        mcu_avgpool_f32_planes(g->n * g->c_in, (int32_t)plane_in, x, y);
        return;
    }
    for (plane = 0; plane < g->n * g->c_in; ++plane) {
        const float *xp = x + (size_t)plane * plane_in;
        for (oz = 0; oz < p->d_out; ++oz) {
            const int32_t z0 = oz * p->stride_d - p->pad_f;
            int32_t in_z, pad_z;
            mcu_avgpool_f32_axis(z0, p->k_d, p->dil_d, p->d_in, p->pad_bk, &in_z, &pad_z);
            for (oy = 0; oy < g->h_out; ++oy) {
                const int32_t y0 = oy * g->stride_h - g->pad_t;
                int32_t in_y, pad_y;
                mcu_avgpool_f32_axis(y0, g->k_h, g->dil_h, g->h_in, p->pad_b, &in_y, &pad_y);
                for (ox = 0; ox < g->w_out; ++ox) {
                    const int32_t x0 = ox * g->stride_w - g->pad_l;
                    int32_t in_x, pad_x;
                    float sum = 0.0f;
                    mcu_avgpool_f32_axis(x0, g->k_w, g->dil_w, g->w_in, p->pad_r, &in_x, &pad_x);
                    for (kz = 0; kz < p->k_d; ++kz) {
                        const int32_t iz = z0 + kz * p->dil_d;
                        if (iz < 0 || iz >= p->d_in) {
                            continue;
                        }
                        for (ky = 0; ky < g->k_h; ++ky) {
                            const int32_t iy = y0 + ky * g->dil_h;
                            if (iy < 0 || iy >= g->h_in) {
                                continue;
                            }
                            for (kx = 0; kx < g->k_w; ++kx) {
                                const int32_t ix = x0 + kx * g->dil_w;
                                float v;
                                if (ix < 0 || ix >= g->w_in) {
                                    continue;
                                }
                                v = xp[(iz * g->h_in + iy) * g->w_in + ix];
                                sum += p->p ? mcu_avgpool_f32_powi(v, p->p) : v;
                            }
                        }
                    }
                    if (p->p == 0) {
                        const int32_t count = p->count_include_pad ? pad_z * pad_y * pad_x : in_z * in_y * in_x;
                        y[q] = sum / (float)count;
                    } else if (p->p == 1) {
                        y[q] = sum;
                    } else if (p->p == 2) {
                        y[q] = sqrtf(sum);
                    } else {
                        y[q] = mcu_powf(sum, 1.0f / (float)p->p);
                    }
                    ++q;
                }
            }
        }
    }
}
