#include "maxpool_f32.h"
#include "mcu_math.h"
#include <float.h>

/* The flat Indices value of input element `at` (row-major within its plane, -1 when the window held no input
 * element) of plane `plane`: row-major over N, C, D, H, W, or column-major within the plane for storage_order 1,
 * as onnxruntime numbers them. */
static int64_t mcu_maxpool_index(const mcu_maxpool_f32_params *p, int32_t plane, int32_t at)
{
    const int32_t h = p->g.h_in, w = p->g.w_in, d = p->d_in;
    const int64_t base = (int64_t)plane * d * h * w;
    if (at < 0) {
        return -1;
    }
    if (p->storage_order) {
        return base + at / (h * w) + (int64_t)((at / w) % h) * d + (int64_t)(at % w) * d * h;
    }
    return base + at;
}

/* The float comparison of the pooling loops, whose running maximum is never a NaN: through the bits where float
 * arithmetic is in software (a library call per comparison otherwise), the same result. */
#if defined(MCU_F32_SOFT)
#define MCU_MAXPOOL_F32_GREATER(a, b) mcu_f32_greater((a), (b))
#else
#define MCU_MAXPOOL_F32_GREATER(a, b) ((a) > (b))
#endif
#define MCU_MAXPOOL_INT_GREATER(a, b) ((a) > (b))

/* One pooling loop per element type (GREATER(a, b): a > b for T). Padding never wins: only taps inside the input
 * are compared, starting from the type's lowest value like onnxruntime; ties keep the first tap in row-major window
 * order. Planes (n, c) go in order, each in row-major output order, every output written after all its reads (the
 * overlap margin in mcucomp/ops/_overlap.py relies on it). */
#define MCU_MAXPOOL_DEFINE(NAME, T, LOWEST, GREATER)                                                                  \
    static void NAME(const mcu_maxpool_f32_params *p, const T *x, T *y, int64_t *indices)                             \
    {                                                                                                                 \
        const mcu_conv_geom *g = &p->g;                                                                               \
        const size_t plane_in = (size_t)p->d_in * g->h_in * g->w_in;                                                  \
        size_t q = 0;                                                                                                 \
        int32_t plane, oz, oy, ox, kz, ky, kx;                                                                        \
        for (plane = 0; plane < g->n * g->c_in; ++plane) {                                                            \
            const T *xp = x + (size_t)plane * plane_in;                                                               \
            for (oz = 0; oz < p->d_out; ++oz) {                                                                       \
                for (oy = 0; oy < g->h_out; ++oy) {                                                                   \
                    for (ox = 0; ox < g->w_out; ++ox) {                                                               \
                        T best = LOWEST;                                                                              \
                        int32_t at = -1;                                                                              \
                        for (kz = 0; kz < p->k_d; ++kz) {                                                             \
                            const int32_t iz = oz * p->stride_d - p->pad_f + kz * p->dil_d;                           \
                            if (iz < 0 || iz >= p->d_in) {                                                            \
                                continue;                                                                             \
                            }                                                                                         \
                            for (ky = 0; ky < g->k_h; ++ky) {                                                         \
                                const int32_t iy = oy * g->stride_h - g->pad_t + ky * g->dil_h;                       \
                                if (iy < 0 || iy >= g->h_in) {                                                        \
                                    continue;                                                                         \
                                }                                                                                     \
                                for (kx = 0; kx < g->k_w; ++kx) {                                                     \
                                    const int32_t ix = ox * g->stride_w - g->pad_l + kx * g->dil_w;                   \
                                    const int32_t i = (iz * g->h_in + iy) * g->w_in + ix;                             \
                                    if (ix < 0 || ix >= g->w_in) {                                                    \
                                        continue;                                                                     \
                                    }                                                                                 \
                                    if (GREATER(xp[i], best)) {                                                       \
                                        best = xp[i];                                                                 \
                                        at = i;                                                                       \
                                    } else if (at < 0) {                                                              \
                                        at = i;                                                                       \
                                    }                                                                                 \
                                }                                                                                     \
                            }                                                                                         \
                        }                                                                                             \
                        y[q] = best;                                                                                  \
                        if (indices) {                                                                                \
                            indices[q] = mcu_maxpool_index(p, plane, at);                                             \
                        }                                                                                             \
                        ++q;                                                                                          \
                    }                                                                                                 \
                }                                                                                                     \
            }                                                                                                         \
        }                                                                                                             \
    }

/* Channels-last (N, H, W, C; int8 of the quantized models only, 2-D, no Indices; one instance keeps float builds
 * small): image by image, output pixels in row-major order, every channel of a
 * pixel in turn, each output written after all its reads (mcucomp/ops/_overlap.py window_margin_nhwc relies on it). */
#define MCU_MAXPOOL_NHWC_DEFINE(NAME, T, LOWEST)                                                                      \
    static void NAME(const mcu_maxpool_f32_params *p, const T *x, T *y)                                               \
    {                                                                                                                 \
        const mcu_conv_geom *g = &p->g;                                                                               \
        const size_t c_in = (size_t)g->c_in;                                                                          \
        int32_t n, c, oy, ox, ky, kx;                                                                                 \
        for (n = 0; n < g->n; ++n) {                                                                                  \
            const T *xn = x + (size_t)n * g->h_in * g->w_in * c_in;                                                   \
            for (oy = 0; oy < g->h_out; ++oy) {                                                                       \
                for (ox = 0; ox < g->w_out; ++ox) {                                                                   \
                    for (c = 0; c < g->c_in; ++c) {                                                                   \
                        T best = LOWEST;                                                                              \
                        for (ky = 0; ky < g->k_h; ++ky) {                                                             \
                            const int32_t iy = oy * g->stride_h - g->pad_t + ky * g->dil_h;                           \
                            if (iy < 0 || iy >= g->h_in) {                                                            \
                                continue;                                                                             \
                            }                                                                                         \
                            for (kx = 0; kx < g->k_w; ++kx) {                                                         \
                                const int32_t ix = ox * g->stride_w - g->pad_l + kx * g->dil_w;                       \
                                if (ix >= 0 && ix < g->w_in && xn[((size_t)iy * g->w_in + ix) * c_in + c] > best) {  \
                                    best = xn[((size_t)iy * g->w_in + ix) * c_in + c];                                \
                                }                                                                                     \
                            }                                                                                         \
                        }                                                                                             \
                        *y++ = best;                                                                                  \
                    }                                                                                                 \
                }                                                                                                     \
            }                                                                                                         \
        }                                                                                                             \
    }

/* Float 2x2 windows at stride 2, every window inside the input (no pads, dilation 1, 2-D, no Indices): the window
 * loop's comparisons without its bounds checks, two input rows walked by pointer, the four taps loaded together and
 * compared in row-major window order from -FLT_MAX (so -inf and NaN lose as there). Same output order, each output
 * written after its reads. */
static void mcu_maxpool_f32_float_2x2(const mcu_maxpool_f32_params *p, const float *x, float *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t w_in = g->w_in;
    int32_t plane, oy, ox;
    for (plane = 0; plane < g->n * g->c_in; ++plane) {
        const float *row = x + (size_t)plane * g->h_in * w_in;
        for (oy = 0; oy < g->h_out; ++oy, row += 2 * (size_t)w_in) {
            const float *t = row, *b = row + w_in;
            for (ox = 0; ox < g->w_out; ++ox, t += 2, b += 2) {
#if defined(MCU_F32_SOFT)
                /* through the bits (no FPU): a tap wins when it is not a NaN and its key is above the best's */
                const uint32_t u0 = mcu_f32_bits(t[0]), u1 = mcu_f32_bits(t[1]), u2 = mcu_f32_bits(b[0]),
                               u3 = mcu_f32_bits(b[1]);
                uint32_t bits = mcu_f32_bits(-FLT_MAX);
                bits = !mcu_f32_bits_nan(u0) && mcu_f32_key(u0) > mcu_f32_key(bits) ? u0 : bits;
                bits = !mcu_f32_bits_nan(u1) && mcu_f32_key(u1) > mcu_f32_key(bits) ? u1 : bits;
                bits = !mcu_f32_bits_nan(u2) && mcu_f32_key(u2) > mcu_f32_key(bits) ? u2 : bits;
                bits = !mcu_f32_bits_nan(u3) && mcu_f32_key(u3) > mcu_f32_key(bits) ? u3 : bits;
                const float best = mcu_f32_from_bits(bits);
#else
                const float v0 = t[0], v1 = t[1], v2 = b[0], v3 = b[1];
                float best = v0 > -FLT_MAX ? v0 : -FLT_MAX;
                best = v1 > best ? v1 : best;
                best = v2 > best ? v2 : best;
                best = v3 > best ? v3 : best;
#endif
                *y++ = best;
            }
        }
    }
}

/** Whether mcu_maxpool_f32_float_2x2 computes this pool: float, NCHW, no Indices, 2x2 windows at stride 2 and
 * dilation 1 that all lie inside the input. */
static int mcu_maxpool_f32_is_2x2(const mcu_maxpool_f32_params *p, const int64_t *indices)
{
    const mcu_conv_geom *g = &p->g;
    return p->dtype == MCU_DT_FLOAT && !p->channels_last && indices == NULL && p->d_in == 1 && p->d_out == 1 &&
           p->k_d == 1 && p->pad_f == 0 && g->k_h == 2 && g->k_w == 2 && g->stride_h == 2 && g->stride_w == 2 &&
           g->dil_h == 1 && g->dil_w == 1 && g->pad_t == 0 && g->pad_l == 0 && 2 * g->h_out <= g->h_in &&
           2 * g->w_out <= g->w_in;
}

MCU_MAXPOOL_DEFINE(mcu_maxpool_f32_float, float, -FLT_MAX, MCU_MAXPOOL_F32_GREATER)
MCU_MAXPOOL_DEFINE(mcu_maxpool_f32_int8, int8_t, INT8_MIN, MCU_MAXPOOL_INT_GREATER)
MCU_MAXPOOL_DEFINE(mcu_maxpool_f32_uint8, uint8_t, 0, MCU_MAXPOOL_INT_GREATER)
MCU_MAXPOOL_NHWC_DEFINE(mcu_maxpool_f32_int8_nhwc, int8_t, INT8_MIN)

void mcu_maxpool_f32(const mcu_maxpool_f32_params *p, const void *x, void *y, int64_t *indices)
{
    if (mcu_maxpool_f32_is_2x2(p, indices)) {
        mcu_maxpool_f32_float_2x2(p, (const float *)x, (float *)y);
    } else if (p->channels_last) {
        mcu_maxpool_f32_int8_nhwc(p, (const int8_t *)x, (int8_t *)y);
    } else if (p->dtype == MCU_DT_INT8) {
        mcu_maxpool_f32_int8(p, (const int8_t *)x, (int8_t *)y, indices);
    } else if (p->dtype == MCU_DT_UINT8) {
        mcu_maxpool_f32_uint8(p, (const uint8_t *)x, (uint8_t *)y, indices);
    } else {
        mcu_maxpool_f32_float(p, (const float *)x, (float *)y, indices);
    }
}
