#include "clamp_f32.h"

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

/* Relu (lo only), Clip (lo and hi), LeakyRelu (slope only) get a loop each; any other combination takes the loop
 * with every part. */
void mcu_clamp_f32(const mcu_clamp_f32_params *p, const float *x, float *y)
{
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
}
