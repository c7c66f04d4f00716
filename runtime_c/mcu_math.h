/* mcucomp runtime: float transcendental functions that give the same bits on every target.
 * libm differs between glibc (host) and newlib (target), so kernels call these instead. Only +, -, *, / and fmaf
 * (exactly rounded by definition) are used, so any IEEE-754 binary32 implementation produces identical results.
 * Accuracy (tests/kernels/test_mcu_math.py): within 2 ULP of the correctly rounded result over the float range. */
#ifndef MCU_MATH_H
#define MCU_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/** The float whose bits are u. */
static inline float mcu_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/** 2^n as a float for -126 <= n <= 127. */
static inline float mcu_pow2i(int32_t n)
{
    return mcu_f32_from_bits((uint32_t)(n + 127) << 23);
}

/** e^x with onnxruntime MLAS's sequence (so float Softmax matches onnxruntime to the bit): n = round(x·log2e)
 * through an FMA with 1.5·2^23, two-part ln2 reduction with FMAs, MLAS's degree-6 polynomial by FMA (Horner), then
 * scaling by 2^n in at most two exact steps so subnormal results round once. This is the single exp of the runtime. */
static inline float mcu_expf(float x)
{
    const float bias = 12582912.0f;
    float n, r, p;
    int32_t k;
    if (x != x) {
        return x;
    }
    if (x > 88.7228394f) {
        return INFINITY;
    }
    if (x < -103.972084f) {
        return 0.0f;
    }
    n = fmaf(x, 1.44269504088896341f, bias) - bias;
    k = (int32_t)n;
    r = fmaf(n, -6.93145752e-1f, x);
    r = fmaf(n, -1.42860677e-6f, r);
    p = 0x1.694000p-10f;
    p = fmaf(p, r, 0x1.125edcp-7f);
    p = fmaf(p, r, 0x1.555b5ap-5f);
    p = fmaf(p, r, 0x1.555450p-3f);
    p = fmaf(p, r, 0x1.fffff6p-2f);
    p = fmaf(p, r, 1.0f);
    p = fmaf(p, r, 1.0f);
    if (k > 127) {
        return (p * 2.0f) * mcu_pow2i(k - 1);
    }
    if (k < -126) {
        return (p * mcu_pow2i(k + 64)) * mcu_pow2i(-64);
    }
    return p * mcu_pow2i(k);
}

/** Softmax of n floats at x[0], x[stride], ... into y (may equal x), in onnxruntime MLAS's order: exact max,
 * e^(x + (-max)), the sum accumulated in 16 lanes (element i into lane i mod 16) reduced as
 * ((l0+l8 + l1+l9) + (l2+l10 + l3+l11)) + ((l4+l12 + l5+l13) + (l6+l14 + l7+l15)), then y *= 1/sum. */
static inline void mcu_softmax_strided(const float *x, float *y, int32_t n, int32_t stride)
{
    float lanes[16] = {0.0f};
    float a[8], max = x[0], neg, inv;
    int32_t i;
    for (i = 1; i < n; ++i) {
        max = x[(size_t)i * stride] > max ? x[(size_t)i * stride] : max;
    }
    neg = -max;
    for (i = 0; i < n; ++i) {
        const float e = mcu_expf(x[(size_t)i * stride] + neg);
        y[(size_t)i * stride] = e;
        lanes[i % 16] = lanes[i % 16] + e;
    }
    for (i = 0; i < 8; ++i) {
        a[i] = lanes[8 + i] + lanes[i];
    }
    inv = 1.0f / (((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])));
    for (i = 0; i < n; ++i) {
        y[(size_t)i * stride] = y[(size_t)i * stride] * inv;
    }
}

/** tanh(x): odd minimax polynomial below |x| = 0.625, else 1 - 2 / (e^(2|x|) + 1) with the sign restored;
 * saturates to +-1 beyond |x| = 9.1 where tanh rounds to 1. */
static inline float mcu_tanhf(float x)
{
    const float ax = fabsf(x);
    float y;
    if (ax < 0.625f) {
        const float z = x * x;
        float p = -5.70498872745e-3f;
        p = fmaf(p, z, 2.06390887954e-2f);
        p = fmaf(p, z, -5.37397155531e-2f);
        p = fmaf(p, z, 1.33314422036e-1f);
        p = fmaf(p, z, -3.33332819422e-1f);
        return fmaf(p * z, x, x);
    }
    if (ax > 9.1f) {
        y = 1.0f;
    } else {
        y = 1.0f - 2.0f / (mcu_expf(2.0f * ax) + 1.0f);
    }
    return x < 0.0f ? -y : y;
}

/** num / (1 + e) for 0 <= e <= 1, accurate to about half an ULP: the rounding error of 1 + e is recovered exactly
 * (Fast2Sum) and the quotient is corrected once with fmaf. */
static inline float mcu_div_one_plus(float num, float e)
{
    const float s = 1.0f + e;
    const float s_err = (1.0f - s) + e;
    const float q = num / s;
    const float resid = fmaf(-q, s, num) - q * s_err;
    return q + resid / s;
}

/** 1 / (1 + e^-x), written as e^x / (1 + e^x) for x < 0 so the exponential never overflows and tiny results
 * keep their relative accuracy. */
static inline float mcu_sigmoidf(float x)
{
    if (x < 0.0f) {
        const float e = mcu_expf(x);
        return mcu_div_one_plus(e, e);
    }
    return mcu_div_one_plus(1.0f, mcu_expf(-x));
}

#endif
