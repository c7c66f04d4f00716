#include "clamp_f32.h"
#include "mcu_math.h"

/* One element: v < 0 takes the slope (SLOPE), then below lo gives lo (LO), else above hi gives hi (HI); both bound
 * tests read the sloped v, as the comparisons in the header's formula do. A part whose flag is 0 is left out where it
 * cannot change the result: a slope of 1 (v * 1 == v for every v < 0), lo = -inf or NaN, hi = +inf or NaN (those
 * comparisons are never true). The multiply and the selections are written branch-free, so the compiler can use
 * conditional moves. */
#define MCU_CLAMP_ONE(v, SLOPE, LO, HI)                                                                              \
    do {                                                                                                             \
        if (SLOPE) {                                                                                                 \
            const float m_ = (v) * slope;                                                                            \
            (v) = (v) < 0.0f ? m_ : (v);                                                                             \
        }                                                                                                            \
        if (HI && LO) {                                                                                              \
            const float h_ = (v) > hi ? hi : (v);                                                                    \
            (v) = (v) < lo ? lo : h_;                                                                                \
        } else if (LO) {                                                                                             \
            (v) = (v) < lo ? lo : (v);                                                                               \
        } else if (HI) {                                                                                             \
            (v) = (v) > hi ? hi : (v);                                                                               \
        }                                                                                                            \
    } while (0)

/* The loop for one combination of parts: four elements per trip, loaded together before any store (an in-place y
 * lies at or before x, mcucomp/ops/_overlap.py elementwise), then the tail one by one. */
#define MCU_CLAMP_LOOP(SLOPE, LO, HI)                                                                                \
    do {                                                                                                             \
        for (; n >= 4; n -= 4, x += 4, y += 4) {                                                                     \
            float v0 = x[0], v1 = x[1], v2 = x[2], v3 = x[3];                                                        \
            MCU_CLAMP_ONE(v0, SLOPE, LO, HI);                                                                        \
            MCU_CLAMP_ONE(v1, SLOPE, LO, HI);                                                                        \
            MCU_CLAMP_ONE(v2, SLOPE, LO, HI);                                                                        \
            MCU_CLAMP_ONE(v3, SLOPE, LO, HI);                                                                        \
            y[0] = v0;                                                                                               \
            y[1] = v1;                                                                                               \
            y[2] = v2;                                                                                               \
            y[3] = v3;                                                                                               \
        }                                                                                                            \
        for (; n > 0; --n, ++x, ++y) {                                                                               \
            float v = x[0];                                                                                          \
            MCU_CLAMP_ONE(v, SLOPE, LO, HI);                                                                         \
            y[0] = v;                                                                                                \
        }                                                                                                            \
    } while (0)

#if defined(MCU_F32_SOFT)
/* The clamp through the floats' bits (cores without an FPU): the same selections with integer comparisons of
 * mcu_f32_key, which order non-NaN floats as float comparisons do; a NaN passes through untouched, as it fails every
 * float comparison; a bound that is -inf, +inf or NaN (never compared true) gets a key no element's key passes. Only
 * negative elements are multiplied by the slope (a software multiply), and not at all for a slope of 1. */
static void mcu_clamp_f32_bits(const mcu_clamp_f32_params *p, const float *x, float *y)
{
    const float slope = p->neg_slope;
    const uint32_t lo = mcu_f32_bits(p->lo), hi = mcu_f32_bits(p->hi);
    const int32_t has_slope = mcu_f32_bits(slope) != 0x3F800000u; /* slope != 1.0f */
    const int32_t k_lo = mcu_f32_bits_nan(lo) || lo == 0xFF800000u ? INT32_MIN : mcu_f32_key(lo);
    const int32_t k_hi = mcu_f32_bits_nan(hi) || hi == 0x7F800000u ? INT32_MAX : mcu_f32_key(hi);
    const int32_t n = p->count;
    int32_t i;
    for (i = 0; i < n; ++i) {
        uint32_t u = mcu_f32_bits(x[i]);
        int32_t k = mcu_f32_key(u);
        if (MCU_RARE(k < 0 && has_slope) && !mcu_f32_bits_nan(u)) {
            u = mcu_f32_bits(x[i] * slope);
            k = mcu_f32_key(u);
        }
        if (!mcu_f32_bits_nan(u)) {
            u = k < k_lo ? lo : (k > k_hi ? hi : u);
        }
        y[i] = mcu_f32_from_bits(u);
    }
}
#endif

/* Relu (lo only), Clip (lo and hi), LeakyRelu (slope only) get a loop each; any other combination takes the loop
 * with every part. */
void mcu_clamp_f32(const mcu_clamp_f32_params *p, const float *x, float *y)
{
#if defined(MCU_F32_SOFT)
    mcu_clamp_f32_bits(p, x, y);
#else
    const float slope = p->neg_slope, lo = p->lo, hi = p->hi;
    const int has_slope = slope != 1.0f, has_lo = lo > -INFINITY, has_hi = hi < INFINITY;
    int32_t n = p->count;
    if (!has_slope && has_lo && !has_hi) {
        MCU_CLAMP_LOOP(0, 1, 0);
    } else if (!has_slope && has_lo && has_hi) {
        MCU_CLAMP_LOOP(0, 1, 1);
    } else if (has_slope && !has_lo && !has_hi) {
        MCU_CLAMP_LOOP(1, 0, 0);
    } else {
        MCU_CLAMP_LOOP(1, 1, 1);
    }
#endif
}
