#include "grid_sample_f32.h"
#include <math.h>

/* Coordinates are clamped to +-2^30 (NaN to the low end) before any conversion to int: far outside every tensor,
 * so the result is unchanged and the conversion always defined. */
#define MCU_GS_FAR 1073741824.0f

/* The taps of one spatial dim: their indices (-1: outside, reads 0) and interpolation weights. */
typedef struct {
    int32_t idx[4];
    float w[4];
} mcu_gs_taps;

static float mcu_gs_far(float v)
{
    return v >= -MCU_GS_FAR ? (v > MCU_GS_FAR ? MCU_GS_FAR : v) : -MCU_GS_FAR;
}

/* Fold v into [lo, hi] by mirroring at the borders (in double, as the reference). */
static double mcu_gs_reflect(double v, double lo, double hi)
{
    const double range = hi - lo;
    double d, k, r;
    if (range <= 0.0 || (v >= lo && v <= hi)) {
        return range <= 0.0 ? lo : v;
    }
    d = v < lo ? lo - v : v - hi;
    k = trunc(d / range);
    r = d - k * range;
    if (fmod(k, 2.0) == 0.0) {
        return v < lo ? lo + r : hi - r;
    }
    return v < lo ? hi - r : lo + r;
}

/* The element an integer tap reads along a dim of length d, or -1 (zeros padding outside). */
static int32_t mcu_gs_index(const mcu_grid_sample_f32_params *p, int32_t i, int32_t d, double lo, double hi)
{
    if (p->padding == MCU_GS_BORDER) {
        return i < 0 ? 0 : (i > d - 1 ? d - 1 : i);
    }
    if (p->padding == MCU_GS_REFLECTION) {
        return (int32_t)mcu_gs_reflect((double)i, lo, hi);
    }
    return i >= 0 && i < d ? i : -1;
}

/* Keys cubic convolution weights for the fractional position t. */
static void mcu_gs_cubic(float t, float *w)
{
    const float a = -0.75f, x = fabsf(t);
    w[0] = ((a * (x + 1.0f) - 5.0f * a) * (x + 1.0f) + 8.0f * a) * (x + 1.0f) - 4.0f * a;
    w[1] = ((a + 2.0f) * x - (a + 3.0f)) * x * x + 1.0f;
    w[2] = ((a + 2.0f) * (1.0f - x) - (a + 3.0f)) * (1.0f - x) * (1.0f - x) + 1.0f;
    w[3] = ((a * (2.0f - x) - 5.0f * a) * (2.0f - x) + 8.0f * a) * (2.0f - x) - 4.0f * a;
}

/* Taps of one dim for the normalized coordinate g. */
static void mcu_gs_dim_taps(const mcu_grid_sample_f32_params *p, float g, int32_t d, int32_t ntaps, mcu_gs_taps *t)
{
    const double lo = p->align_corners ? 0.0 : -0.5, hi = p->align_corners ? d - 1.0 : d - 0.5;
    float v = p->align_corners ? (g + 1.0f) / 2.0f * (float)(d - 1) : ((g + 1.0f) * (float)d - 1.0f) / 2.0f;
    int32_t k, i0;
    if (p->mode == MCU_GS_NEAREST) {
        v = rintf(v);
    }
    if (v < lo || v > hi) {
        if (p->padding == MCU_GS_BORDER) {
            v = v < 0.0f ? 0.0f : (v > (float)(d - 1) ? (float)(d - 1) : v);
        } else if (p->padding == MCU_GS_REFLECTION) {
            v = (float)mcu_gs_reflect((double)v, lo, hi);
        }
    }
    v = mcu_gs_far(v);
    if (p->mode == MCU_GS_NEAREST) {
        t->idx[0] = mcu_gs_index(p, (int32_t)v, d, lo, hi);
        t->w[0] = 1.0f;
        return;
    }
    i0 = (int32_t)floorf(v);
    if (p->mode == MCU_GS_CUBIC) {
        mcu_gs_cubic(v - (float)i0, t->w);
        i0 -= 1;
    } else {
        t->w[1] = fabsf(v - (float)i0);
        t->w[0] = 1.0f - t->w[1];
    }
    for (k = 0; k < ntaps; ++k) {
        t->idx[k] = mcu_gs_index(p, i0 + k, d, lo, hi);
    }
}

/* Weighted sum over the taps of dim `dim` of the sub-tensor at `base`, inner dims first. */
static float mcu_gs_interp(const float *x, const mcu_gs_taps *t, const int32_t *strides, int32_t dim, int32_t nd,
                           int32_t ntaps, size_t base)
{
    float acc = 0.0f;
    int32_t k;
    for (k = 0; k < ntaps; ++k) {
        float v = 0.0f;
        if (t[dim].idx[k] >= 0) {
            const size_t at = base + (size_t)t[dim].idx[k] * strides[dim];
            v = dim == nd - 1 ? x[at] : mcu_gs_interp(x, t, strides, dim + 1, nd, ntaps, at);
        }
        acc += t[dim].w[k] * v;
    }
    return acc;
}

void mcu_grid_sample_f32(const mcu_grid_sample_f32_params *p, const float *x, const float *grid, float *y)
{
    const int32_t ntaps = p->mode == MCU_GS_NEAREST ? 1 : (p->mode == MCU_GS_LINEAR ? 2 : 4);
    int32_t strides[MCU_GS_MAX_DIMS];
    size_t plane = 1;
    int32_t b, c, pt, i;
    for (i = p->nd - 1; i >= 0; --i) {
        strides[i] = (int32_t)plane;
        plane *= (size_t)p->dims[i];
    }
    for (b = 0; b < p->n; ++b) {
        for (pt = 0; pt < p->points; ++pt) {
            mcu_gs_taps taps[MCU_GS_MAX_DIMS];
            const float *g = grid + ((size_t)b * p->points + pt) * p->nd;
            for (i = 0; i < p->nd; ++i) {
                mcu_gs_dim_taps(p, g[p->nd - 1 - i], p->dims[i], ntaps, &taps[i]);
            }
            for (c = 0; c < p->c; ++c) {
                y[((size_t)b * p->c + c) * p->points + pt] =
                    mcu_gs_interp(x, taps, strides, 0, p->nd, ntaps, ((size_t)b * p->c + c) * plane);
            }
        }
    }
}
