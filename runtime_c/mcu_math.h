/* mcucomp runtime: float transcendental functions that give the same bits on every target.
 * libm differs between glibc (host) and newlib (target), so kernels call these instead. Only operations that IEEE-754
 * rounds exactly are used: +, -, *, / and sqrt in float and double (soft-float double on Cortex-M is exact too),
 * fmaf, and the exact helpers fabsf, fabs, truncf, fmodf, copysignf; so every target produces identical results.
 * Accuracy (tests/kernels/test_mcu_math.py, each function's comment gives its measured maximum): mcu_expf (float
 * arithmetic, MLAS's), mcu_tanhf and mcu_sigmoidf (float arithmetic without fmaf) within 2 ULP (measured 0.85; 1.22
 * and 1.45 over every seventh float of [-110, 110], beyond which both saturate); the functions
 * evaluated in double within 0.5 ULP plus about 1e-7 (correctly rounded in every case measured; every float for log,
 * sin, cos, tan, atan and erf). */
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
 * scaling by 2^n in at most two exact steps so subnormal results round once. This is the float exp of the runtime
 * (mcu_exp_d below serves the functions evaluated in double). */
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

/** c[0] z^(n-1) + c[1] z^(n-2) + ... + c[n-1] by Horner's rule in float, a multiply then an add per step
 * (coefficients highest degree first). */
static inline float mcu_poly_f(const float *c, int32_t n, float z)
{
    float p = c[0];
    int32_t i;
#pragma GCC unroll 8 /* the loop's loads and branches would cost more than its arithmetic */
    for (i = 1; i < n; ++i) {
        p = p * z + c[i];
    }
    return p;
}

/** e^t for -104 <= t <= 0 (the arguments of mcu_sigmoidf and mcu_tanhf) as the rounded result plus, in *lo, the
 * rounding error of its last addition (0 for subnormal results), with separate multiplies and adds only, so a core
 * without an FPU makes no fmaf library call: n = round(t log2e) by adding and subtracting 1.5*2^23; Cody-Waite
 * reduction with ln2 = 0.693359375 - 2.12194440e-4, whose first part has 9 bits, so n times it and t minus that are
 * exact; MLAS's degree-6 polynomial as 1 + (r + r^2 q(r)), q by Horner, so the rounding errors of the higher terms
 * stay far below the last addition's, whose error (Fast2Sum) the callers take into account; scaling by 2^n in at most
 * two exact steps so subnormal results round once. */
static inline float mcu_exp_nonpos(float t, float *lo)
{
    const float bias = 12582912.0f;
    const float n = (t * 1.44269504088896341f + bias) - bias;
    const int32_t k = (int32_t)n;
    const float r = (t - n * 0.693359375f) - n * -2.12194440e-4f;
    float q = 0x1.694000p-10f, w, p;
    q = q * r + 0x1.125edcp-7f;
    q = q * r + 0x1.555b5ap-5f;
    q = q * r + 0x1.555450p-3f;
    q = q * r + 0x1.fffff6p-2f;
    w = r + (r * r) * q;
    p = 1.0f + w;
    if (k < -126) {
        *lo = 0.0f;
        return (p * mcu_pow2i(k + 64)) * mcu_pow2i(-64);
    }
    *lo = ((1.0f - p) + w) * mcu_pow2i(k);
    return p * mcu_pow2i(k);
}

/** tanh(x): x + x z p(z), z = x^2, below |x| = 1 (p of degree 6 fitted to (tanh(x)/x - 1)/z for the least maximum
 * relative error, 4e-9), else (1 - e) / (1 + e) with e = e^(-2|x|) and the sign restored, in one division: the
 * rounding errors of 1 - e and 1 + e (Fast2Sum, e <= 0.14) and of e itself are added back through 1 / (1 + e) ~ 1 - e
 * (the correction is below an ULP, so the approximation's 2% is far below the final rounding). Saturates to +-1 from
 * |x| = 9.1, where tanh rounds to 1. Separate multiplies and adds only. */
static inline float mcu_tanhf(float x)
{
    const float ax = fabsf(x);
    float e, e_lo, a, a_err, s, s_err, q, y;
    if (ax < 1.0f) {
        const float z = x * x;
        static const float coef[] = {-0x1.7c2242p-12f, 0x1.2f7e40p-9f, -0x1.050118p-7f, 0x1.603f0ap-6f,
            -0x1.b96b28p-5f, 0x1.110c3cp-3f, -0x1.55553ep-2f};
        const float p = mcu_poly_f(coef, 7, z);
        return x == 0.0f ? x : x + (p * z) * x; /* tanh(-0) = -0, as onnxruntime */
    }
    if (!(ax < 9.1f)) {
        y = 1.0f;
        if (x != x) {
            return x;
        }
    } else {
        e = mcu_exp_nonpos(-2.0f * ax, &e_lo);
        a = 1.0f - e;
        a_err = ((1.0f - a) - e) - e_lo;
        s = 1.0f + e;
        s_err = ((1.0f - s) + e) + e_lo;
        q = a / s;
        y = q + (a_err - q * s_err) * a;
    }
    return x < 0.0f ? -y : y;
}

/** 1 / (1 + e^-x): 1/2 + x (1/4 + z q(z)), z = x^2, below |x| = 1 (q of degree 4 fitted to the odd part for the
 * least maximum error, 5e-11 relative to x^3); else, with e = e^-|x| <= 1, 1 / (1 + e) for x >= 0 and e / (1 + e)
 * below, so the exponential never overflows and tiny results keep their relative accuracy. One division: the rounding
 * errors of 1 + e (Fast2Sum) and of e itself are taken into the quotient y through 1 / (1 + e) = y for x >= 0 and
 * 1 - y below. 0 or 1 from |x| = 104, where e^-|x| rounds to 0. Separate multiplies and adds only. */
static inline float mcu_sigmoidf(float x)
{
    const float ax = fabsf(x);
    float e, e_lo, s, s_err, y;
    if (ax < 1.0f) {
        const float z = x * x;
        static const float coef[] = {-0x1.ad1540p-20f, 0x1.5be1a4p-16f, -0x1.b96ba6p-13f, 0x1.110e68p-9f,
            -0x1.55554ep-6f};
        const float q = mcu_poly_f(coef, 5, z);
        return 0.5f + x * (0.25f + z * q);
    }
    if (!(ax < 104.0f)) {
        if (x != x) {
            return x;
        }
        return x < 0.0f ? 0.0f : 1.0f;
    }
    e = mcu_exp_nonpos(-ax, &e_lo);
    s = 1.0f + e;
    s_err = (1.0f - s) + e + e_lo;
    if (x < 0.0f) {
        y = e / s;
        return y + (e_lo - y * s_err) * (1.0f - y);
    }
    y = 1.0f / s;
    return y - y * (s_err * y);
}

/* ---- Double-precision cores. Float functions below evaluate in double (IEEE +, -, *, / and sqrt are correctly
 * rounded on every target, soft-float included) to about 1e-15 relative, so the final rounding to float is the only
 * error that matters: results are within 1 ULP, nearly always correctly rounded. ---- */

/** The bits of a double. */
static inline uint64_t mcu_f64_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/** The double whose bits are u. */
static inline double mcu_f64_from_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/** c[0] z^(n-1) + c[1] z^(n-2) + ... + c[n-1] by Horner's rule in double (coefficients highest degree first). */
static inline double mcu_poly_d(const double *c, int32_t n, double z)
{
    double p = c[0];
    int32_t i;
    for (i = 1; i < n; ++i) {
        p = p * z + c[i];
    }
    return p;
}

/** ln(1 + f) for sqrt(1/2) - 1 <= f <= sqrt(2) - 1: 2 atanh(s) with s = f / (2 + f), |s| <= 0.1716, as the odd
 * series 2s (1 + s^2/3 + s^4/5 + ...) through s^22 (truncation below 1e-18). */
static inline double mcu_log1p_core(double f)
{
    static const double coef[] = {1.0 / 23, 1.0 / 21, 1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9,
        1.0 / 7, 1.0 / 5, 1.0 / 3};
    const double s = f / (2.0 + f), z = s * s;
    const double p = mcu_poly_d(coef, 11, z);
    return 2.0 * s + (2.0 * s) * (z * p);
}

/** ln 2 split so that k * MCU_LN2_HI is exact for |k| < 2^20. */
#define MCU_LN2_HI 6.93147180369123816490e-01
#define MCU_LN2_LO 1.90821492927058770002e-10

/** ln(x) for a positive normal double x: x = 2^e * m with sqrt(1/2) <= m < sqrt(2), ln x = e ln2 + ln(1 + (m - 1))
 * (m - 1 is exact). Relative error a few 1e-16. */
static inline double mcu_log_d(double x)
{
    const uint64_t u = mcu_f64_bits(x);
    int32_t e = (int32_t)(u >> 52) - 1023;
    double m = mcu_f64_from_bits((u & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
    if (m > 1.41421356237309504880) {
        m *= 0.5;
        e += 1;
    }
    return (double)e * MCU_LN2_HI + ((double)e * MCU_LN2_LO + mcu_log1p_core(m - 1.0));
}

/** ln(1 + u) for u > -1 without losing the low bits of u: the core directly near 0, else ln(w) of w = 1 + u plus the
 * first-order correction for the rounding of w. */
static inline double mcu_log1p_d(double u)
{
    double w;
    if (u >= -0.29289321881345248 && u <= 0.41421356237309504) {
        return mcu_log1p_core(u);
    }
    w = 1.0 + u;
    return mcu_log_d(w) + (u - (w - 1.0)) / w;
}

/** e^x in double to a few 1e-16 relative: x = k ln2 + r, |r| <= ln2/2 (two-part ln2), Taylor series of e^r through
 * r^14, times 2^k. +inf above 709 and +0 below -700 (far outside the float range). */
static inline double mcu_exp_d(double x)
{
    static const double coef[] = {1.0 / 87178291200.0, 1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0,
        1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0,
        0.5, 1.0, 1.0};
    double t, r, p;
    int32_t k;
    if (x != x) {
        return x;
    }
    if (x > 709.0) {
        return (double)INFINITY;
    }
    if (x < -700.0) {
        return 0.0;
    }
    t = x * 1.44269504088896338700;
    k = (int32_t)(t < 0.0 ? t - 0.5 : t + 0.5);
    r = (x - (double)k * MCU_LN2_HI) - (double)k * MCU_LN2_LO;
    p = mcu_poly_d(coef, 15, r);
    return p * mcu_f64_from_bits((uint64_t)(k + 1023) << 52);
}

/** ln(x) (measured on every float: max 0.50 ULP against glibc's double log); ln(+-0) = -inf, ln(x < 0) = NaN,
 * ln(+inf) = +inf. */
static inline float mcu_logf(float x)
{
    if (!(x > 0.0f)) {
        return x == 0.0f ? -INFINITY : (x != x ? x : NAN);
    }
    if (x == INFINITY) {
        return x;
    }
    return (float)mcu_log_d((double)x);
}

/** 0 when y is not an integer, 1 when it is an even integer, -1 when it is an odd integer (y finite). */
static inline int32_t mcu_int_parity(float y)
{
    if (truncf(y) != y) {
        return 0;
    }
    return fabsf(y) < 16777216.0f && fmodf(y, 2.0f) != 0.0f ? -1 : 1;
}

/** x^y with C99 powf semantics (ONNX Pow on floats): x^+-0 = 1 and 1^y = 1 even for NaN; a finite negative base
 * needs an integer exponent (else NaN); odd integer exponents keep the sign of x (-0 and -inf included); zeros and
 * infinities follow C99 F.9.4.4.
 * |x|^y = e^(y ln|x|) in double (measured: max 0.50 ULP). */
static inline float mcu_powf(float x, float y)
{
    const float ax = fabsf(x), ay = fabsf(y);
    int32_t parity;
    double r;
    if (y == 0.0f || x == 1.0f) {
        return 1.0f;
    }
    if (x != x || y != y) {
        return x + y;
    }
    if (ay == INFINITY) {
        if (ax == 1.0f) {
            return 1.0f;
        }
        return (ax < 1.0f) == (y < 0.0f) ? INFINITY : 0.0f;
    }
    parity = mcu_int_parity(y);
    if (x < 0.0f && ax != INFINITY && parity == 0) {
        return NAN;
    }
    if (ax == 0.0f || ax == INFINITY) {
        /* 0^y and inf^y are 0 or inf, with x's sign kept only for odd integer y. */
        r = (ax == 0.0f) == (y < 0.0f) ? (double)INFINITY : 0.0;
    } else {
        r = mcu_exp_d((double)y * mcu_log_d((double)ax));
    }
    return (float)(copysignf(1.0f, x) < 0.0f && parity < 0 ? -r : r);
}

/** pi/2 in double. */
#define MCU_PIO2 1.57079632679489661923

/** e^x - 1 without cancellation near 0: Taylor series through x^16 for |x| < 1/2, else e^x - 1. */
static inline double mcu_expm1_d(double x)
{
    static const double coef[] = {1.0 / 20922789888000.0, 1.0 / 1307674368000.0, 1.0 / 87178291200.0,
        1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0,
        1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 1.0 / 2.0};
    double p;
    if (x > -0.5 && x < 0.5) {
        p = mcu_poly_d(coef, 15, x);
        return x + x * (x * p);
    }
    return mcu_exp_d(x) - 1.0;
}

/** sin r for |r| <= pi/4 (plus rounding): Taylor series through r^19 (truncation below 1e-19). */
static inline double mcu_sin_core(double r)
{
    static const double coef[] = {-1.0 / 121645100408832000.0, 1.0 / 355687428096000.0, -1.0 / 1307674368000.0,
        1.0 / 6227020800.0, -1.0 / 39916800.0, 1.0 / 362880.0, -1.0 / 5040.0, 1.0 / 120.0, -1.0 / 6.0};
    const double z = r * r;
    double p;
    p = mcu_poly_d(coef, 9, z);
    return r + r * (z * p);
}

/** cos r for |r| <= pi/4 (plus rounding): Taylor series through r^18 (truncation below 1e-20). */
static inline double mcu_cos_core(double r)
{
    static const double coef[] = {-1.0 / 6402373705728000.0, 1.0 / 20922789888000.0, -1.0 / 87178291200.0,
        1.0 / 479001600.0, -1.0 / 3628800.0, 1.0 / 40320.0, -1.0 / 720.0, 1.0 / 24.0, -1.0 / 2.0};
    const double z = r * r;
    double p;
    p = mcu_poly_d(coef, 9, z);
    return 1.0 + z * p;
}

/** q and r with ax = q pi/2 + r, |r| <= pi/4 (q mod 4 returned), for a finite float ax > pi/4, by Payne-Hanek:
 * ax = m 2^e with a 24-bit integer m, and ax 2/pi mod 4 = m * frac(2^(e-2) 2/pi) * 4 mod 4 needs only the 96 bits of
 * 2/pi that start at bit e-2 (exact integer products; the truncated bits add below 2^-70). Valid for every float,
 * so arguments up to 3.4e38 keep full accuracy. */
static inline int32_t mcu_rem_pio2f(float ax, double *r)
{
    /* 2/pi in binary after 32 zero bits: bit j (most significant first) is bit j - 32 after the point of 2/pi. */
    static const uint32_t two_over_pi[8] = {0x00000000U, 0xa2f9836eU, 0x4e441529U, 0xfc2757d1U, 0xf534ddc0U,
                                            0xdb629599U, 0x3c439041U, 0xfe5163abU};
    uint32_t u, win[3];
    uint64_t m, lo, mid, hi, top;
    int64_t frac;
    int32_t pos, w, s, k, q;
    memcpy(&u, &ax, sizeof u);
    m = (uint64_t)((u & 0x007fffffU) | 0x00800000U);
    pos = (int32_t)(u >> 23) - 150 + 30;
    w = pos >> 5;
    s = pos & 31;
    for (k = 0; k < 3; ++k) {
        win[k] = s == 0 ? two_over_pi[w + k]
                        : (two_over_pi[w + k] << s) | (two_over_pi[w + k + 1] >> (32 - s));
    }
    lo = m * win[2];
    mid = m * win[1] + (lo >> 32);
    hi = m * win[0] + (mid >> 32);
    top = (hi << 32) | (mid & 0xffffffffU);
    q = (int32_t)(top >> 62);
    frac = (int64_t)(top & 0x3fffffffffffffffULL);
    if (frac >= (int64_t)0x2000000000000000LL) {
        frac -= (int64_t)0x4000000000000000LL;
        q += 1;
    }
    *r = (((double)frac + (double)(lo & 0xffffffffU) * 2.3283064365386963e-10) * 2.168404344971009e-19) * MCU_PIO2;
    return q & 3;
}

/** sin x (measured on every float: max 0.50 ULP against glibc's double sin); sin(+-inf) = NaN. */
static inline float mcu_sinf(float x)
{
    const float ax = fabsf(x);
    double r, v;
    int32_t q;
    if (ax <= 0.785398163f) {
        return x == 0.0f ? x : (float)mcu_sin_core((double)x); /* keeps the sign of zero */
    }
    if (!(ax < INFINITY)) {
        return x - x;
    }
    q = mcu_rem_pio2f(ax, &r);
    v = (q & 1) ? mcu_cos_core(r) : mcu_sin_core(r);
    v = (q & 2) ? -v : v;
    return (float)(x < 0.0f ? -v : v);
}

/** cos x (measured on every float: max 0.50 ULP against glibc's double cos); cos(+-inf) = NaN. */
static inline float mcu_cosf(float x)
{
    const float ax = fabsf(x);
    double r, v;
    int32_t q;
    if (ax <= 0.785398163f) {
        return (float)mcu_cos_core((double)x);
    }
    if (!(ax < INFINITY)) {
        return x - x;
    }
    q = mcu_rem_pio2f(ax, &r);
    v = (q & 1) ? mcu_sin_core(r) : mcu_cos_core(r);
    return (float)(((q + 1) & 2) ? -v : v);
}

/** tan x (measured on every float: max 0.50 ULP against glibc's double tan); tan(+-inf) = NaN. */
static inline float mcu_tanf(float x)
{
    const float ax = fabsf(x);
    double r, v;
    int32_t q;
    if (ax <= 0.785398163f) {
        return x == 0.0f ? x : (float)(mcu_sin_core((double)x) / mcu_cos_core((double)x));
    }
    if (!(ax < INFINITY)) {
        return x - x;
    }
    q = mcu_rem_pio2f(ax, &r);
    v = (q & 1) ? -mcu_cos_core(r) / mcu_sin_core(r) : mcu_sin_core(r) / mcu_cos_core(r);
    return (float)(x < 0.0f ? -v : v);
}

/** atan t for any double t (+-inf included; atan(-0) = +0): for |t| > 1 atan t = pi/2 - atan(1/t); then one
 * argument halving atan a = 2 atan(a / (1 + sqrt(1 + a^2))) leaves a <= tan(pi/8), where the odd series runs through
 * a^41. */
static inline double mcu_atan_d(double t)
{
    static const double coef[] = {1.0 / 41, -1.0 / 39, 1.0 / 37, -1.0 / 35, 1.0 / 33, -1.0 / 31, 1.0 / 29, -1.0 / 27,
        1.0 / 25, -1.0 / 23, 1.0 / 21, -1.0 / 19, 1.0 / 17, -1.0 / 15, 1.0 / 13, -1.0 / 11, 1.0 / 9, -1.0 / 7,
        1.0 / 5, -1.0 / 3};
    const double at = t < 0.0 ? -t : t;
    const int32_t invert = at > 1.0;
    double a = invert ? 1.0 / at : at, z, p, v;
    a = a / (1.0 + sqrt(1.0 + a * a));
    z = a * a;
    p = mcu_poly_d(coef, 20, z);
    v = 2.0 * (a + a * (z * p));
    v = invert ? MCU_PIO2 - v : v;
    return t < 0.0 ? -v : v;
}

/** atan x (measured on every float: max 0.50 ULP against glibc's double atan). */
static inline float mcu_atanf(float x)
{
    return copysignf((float)mcu_atan_d((double)x), x);
}

/** asin x = atan(x / sqrt((1 - x)(1 + x))) (1 - x and 1 + x exact in double; measured: max 0.50 ULP); NaN outside
 * [-1, 1]. */
static inline float mcu_asinf(float x)
{
    const double d = (double)x;
    if (!(fabsf(x) <= 1.0f)) {
        return x != x ? x : NAN;
    }
    if (fabsf(x) == 1.0f) {
        return (float)(d * MCU_PIO2);
    }
    return copysignf((float)mcu_atan_d(d / sqrt((1.0 - d) * (1.0 + d))), x);
}

/** acos x = 2 atan(sqrt((1 - x) / (1 + x))) (accurate next to both ends; measured: max 0.50 ULP); NaN outside
 * [-1, 1]. */
static inline float mcu_acosf(float x)
{
    const double d = (double)x;
    if (!(fabsf(x) <= 1.0f)) {
        return x != x ? x : NAN;
    }
    if (x == -1.0f) {
        return (float)(2.0 * MCU_PIO2);
    }
    return (float)(2.0 * mcu_atan_d(sqrt((1.0 - d) / (1.0 + d))));
}

/** sinh x: odd Taylor series through x^21 below |x| = 1 (no cancellation), else (e^|x| - e^-|x|) / 2 with the sign
 * restored (measured: max 0.50 ULP); overflows to +-inf above 89.4. */
static inline float mcu_sinhf(float x)
{
    static const double coef[] = {1.0 / 51090942171709440000.0, 1.0 / 121645100408832000.0, 1.0 / 355687428096000.0,
        1.0 / 1307674368000.0, 1.0 / 6227020800.0, 1.0 / 39916800.0, 1.0 / 362880.0, 1.0 / 5040.0, 1.0 / 120.0,
        1.0 / 6.0};
    const double a = fabs((double)x);
    double v, p, z, e;
    if (a < 1.0) {
        z = a * a;
        p = mcu_poly_d(coef, 10, z);
        v = a + a * (z * p);
    } else {
        e = mcu_exp_d(a);
        v = 0.5 * (e - 1.0 / e);
    }
    return copysignf((float)v, x);
}

/** cosh x = (e^|x| + e^-|x|) / 2 (measured: max 0.50 ULP); overflows to +inf above 89.4. */
static inline float mcu_coshf(float x)
{
    const double e = mcu_exp_d(fabs((double)x));
    return (float)(0.5 * (e + 1.0 / e));
}

/** asinh x = ln(1 + a + a^2 / (1 + sqrt(1 + a^2))), a = |x|, with the sign restored (the ln(1 + u) form keeps small
 * arguments accurate; measured: max 0.50 ULP). */
static inline float mcu_asinhf(float x)
{
    const double a = fabs((double)x);
    if (a == (double)INFINITY) {
        return x;
    }
    return copysignf((float)mcu_log1p_d(a + a * a / (1.0 + sqrt(1.0 + a * a))), x);
}

/** acosh x = ln(1 + t + sqrt(t (t + 2))), t = x - 1 exact in double (accurate next to 1; measured: max 0.50 ULP);
 * NaN below 1. */
static inline float mcu_acoshf(float x)
{
    const double t = (double)x - 1.0;
    if (!(x >= 1.0f)) {
        return x != x ? x : NAN;
    }
    if (x == INFINITY) {
        return x;
    }
    return (float)mcu_log1p_d(t + sqrt(t * (t + 2.0)));
}

/** atanh x = ln(1 + 2a / (1 - a)) / 2, a = |x|, with the sign restored (measured: max 0.50 ULP); +-inf at +-1, NaN
 * outside [-1, 1]. */
static inline float mcu_atanhf(float x)
{
    const double a = fabs((double)x);
    if (!(a <= 1.0)) {
        return x != x ? x : NAN;
    }
    if (a == 1.0) {
        return copysignf(INFINITY, x);
    }
    return copysignf((float)(0.5 * mcu_log1p_d(2.0 * a / (1.0 - a))), x);
}

/** erfc x for x >= 1/2 as t e^(-x^2 + h(5t - 1)), t = 2 / (2 + x), where h is a degree-20 polynomial fitted to
 * ln(erfc(x) / t) + x^2 on t in [0, 0.8] (Chebyshev interpolation with mpmath at 50 digits, max error 3.4e-15;
 * h stays smooth as x -> inf, where erfc x ~ e^(-x^2) / (x sqrt(pi))). 0 beyond 27, far below the float range. */
static inline double mcu_erfc_pos(double x)
{
    static const double coef[] = {5.614345417831928e-09, -1.6734345446507727e-08, -3.4105830508970914e-08,
        1.6999445174150855e-07, 2.881807173188223e-08, -9.46995351867434e-07, 7.13766804337716e-07,
        3.9895985880164446e-06, -6.406627749301996e-06, -1.4760772291815122e-05, 3.887645563097744e-05,
        5.453269360908706e-05, -0.000211316035395794, -0.00024266138537481228, 0.0011597609511266112,
        0.001620994872095168, -0.006975254686666495, -0.018367473806631444, 0.046376084952861975, 0.5187684450161348,
        -0.8040723101069575};
    double t, u, p;
    if (x > 27.0) {
        return 0.0;
    }
    t = 2.0 / (2.0 + x);
    u = 2.5 * t - 1.0;
    p = mcu_poly_d(coef, 21, u);
    return t * mcu_exp_d(p - x * x);
}

/** erf x for |x| < 1/2: Maclaurin series 2/sqrt(pi) sum (-1)^n x^(2n+1) / (n! (2n+1)) through n = 12. */
static inline double mcu_erf_small(double x)
{
    static const double coef[] = {1.0 / 11975040000.0, -1.0 / 918086400.0, 1.0 / 76204800.0, -1.0 / 6894720.0,
        1.0 / 685440.0, -1.0 / 75600.0, 1.0 / 9360.0, -1.0 / 1320.0, 1.0 / 216.0, -1.0 / 42.0, 1.0 / 10.0, -1.0 / 3.0,
        1.0 / 1.0};
    const double z = x * x;
    double p;
    p = mcu_poly_d(coef, 13, z);
    return 1.12837916709551257390 * x * p;
}

/** erfc x for any double x: 1 - erf x near 0, 2 - erfc(-x) for x <= -1/2. */
static inline double mcu_erfc_d(double x)
{
    if (x >= 0.5) {
        return mcu_erfc_pos(x);
    }
    if (x > -0.5) {
        return 1.0 - mcu_erf_small(x);
    }
    return 2.0 - mcu_erfc_pos(-x);
}

/** erf x (measured on every float: max 0.50 ULP against glibc's double erf): the series near 0, else
 * +-(1 - erfc |x|). */
static inline float mcu_erff(float x)
{
    const double d = (double)x;
    if (fabsf(x) < 0.5f) {
        return (float)mcu_erf_small(d);
    }
    return copysignf((float)(1.0 - mcu_erfc_pos(fabs(d))), x);
}

/* ---- Activations: each evaluated in double from the cores above and rounded once. ---- */

/** alpha (e^x - 1) for x < 0, else x (ONNX Elu; measured: max 0.50 ULP). */
static inline float mcu_eluf(float x, float alpha)
{
    return x < 0.0f ? (float)((double)alpha * mcu_expm1_d((double)x)) : x;
}

/** max(0, x) + min(0, alpha (e^(x/alpha) - 1)) (ONNX Celu; measured: max 0.50 ULP). */
static inline float mcu_celuf(float x, float alpha)
{
    const double d = (double)x, neg = (double)alpha * mcu_expm1_d(d / (double)alpha);
    if (x != x) {
        return x;
    }
    return (float)((d > 0.0 ? d : 0.0) + (neg < 0.0 ? neg : 0.0));
}

/** ln(1 + e^x) = max(x, 0) + ln(1 + e^-|x|), never overflowing (measured: max 0.50 ULP). */
static inline float mcu_softplusf(float x)
{
    const double d = (double)x;
    return (float)((d > 0.0 ? d : 0.0) + mcu_log1p_d(mcu_exp_d(-fabs(d))));
}

/** x tanh(ln(1 + e^x)) = x n / (n + 2) with n = e^x (e^x + 2) (measured: max 0.50 ULP); x itself above 30, where
 * the factor rounds to 1 in double, and -0 at -inf (the limit). */
static inline float mcu_mishf(float x)
{
    double e, n;
    if (x > 30.0f) {
        return x;
    }
    if (x == -INFINITY) {
        return -0.0f;
    }
    e = mcu_exp_d((double)x);
    n = e * (e + 2.0);
    return (float)((double)x * n / (n + 2.0));
}

/** x / (1 + e^(-alpha x)) (ONNX Swish, x sigmoid(alpha x); measured: max 0.50 ULP); the limit 0 where e^(-alpha x)
 * overflows. */
static inline float mcu_swishf(float x, float alpha)
{
    const double e = mcu_exp_d(-(double)alpha * (double)x);
    return e == (double)INFINITY ? copysignf(0.0f, x) : (float)((double)x / (1.0 + e));
}

/** x/2 erfc(-x / sqrt 2) = x/2 (1 + erf(x / sqrt 2)) (ONNX Gelu, approximate="none"; the erfc form keeps the tiny
 * results of negative x accurate; measured: max 0.50 ULP); the limit -0 at -inf. */
static inline float mcu_geluf(float x)
{
    if (x == -INFINITY) {
        return -0.0f;
    }
    return (float)(0.5 * (double)x * mcu_erfc_d(-(double)x * 0.70710678118654752440));
}

/** x/2 (1 + tanh(u)) = x / (1 + e^(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3) (ONNX Gelu, approximate="tanh";
 * measured: max 0.50 ULP); the limit 0 where e^(-2u) overflows. */
static inline float mcu_gelu_tanhf(float x)
{
    const double d = (double)x;
    const double e = mcu_exp_d(-1.59576912160573071176 * (d + 0.044715 * d * d * d));
    return e == (double)INFINITY ? copysignf(0.0f, x) : (float)(d / (1.0 + e));
}

#endif
