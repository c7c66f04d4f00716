/* mcucomp runtime: shared types and arithmetic helpers.
 * Every identifier starting with mcu_/MCU_ is renamed to the model's prefix when the file is emitted,
 * so several models link into one image. C99, no malloc, no stdio, no writable globals. */
#ifndef MCU_RT_H
#define MCU_RT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The float multiply-accumulate of the dot-product kernels (conv, GEMM, RNN gates): fused, one rounding (fmaf, VFMA
 * on an FPU), when MCU_F32_FUSED is 1; else a multiply then an add, two roundings (VMUL + VADD; the build passes
 * -ffp-contract=off so no compiler fuses them). Each core gets the form it runs fastest: VFMA takes 3 cycles on the
 * Cortex-M4 and M33 against 1 + 1 for VMUL and VADD, and issues every cycle on the M7 and M55. The compiler writes
 * the target's form into the emitted copy of this file (option float_mac, report.json "float_mac"), so the host build
 * of the same C computes the target's bits. */
#ifndef MCU_F32_FUSED
#define MCU_F32_FUSED 1
#endif
#if MCU_F32_FUSED
#define MCU_F32_MAC(acc, a, b) fmaf((a), (b), (acc))
#else
#define MCU_F32_MAC(acc, a, b) ((acc) + (a) * (b))
#endif

/* 1.5 * 2^23: adding and subtracting it rounds a float with |v| < 2^22 to an integer, half to even,
 * in the default rounding mode, exactly as onnxruntime's MLAS requantization does. */
#define MCU_ROUND_MAGIC 12582912.0f

/* MCU_RARE(c): c, marked as seldom true so that the compiler lays the common case out as the fall-through.
 * MCU_INLINE: inline, and with GCC always, so that a call site's constant arguments specialise the body and no call
 * and spills sit in an inner loop. */
#if defined(__GNUC__)
#define MCU_RARE(c) __builtin_expect((c), 0)
#define MCU_INLINE __attribute__((always_inline)) inline
#else
#define MCU_RARE(c) (c)
#define MCU_INLINE inline
#endif

/** Round half to even; |v| must be below 2^22 (callers clamp first). */
static inline int32_t mcu_round_even(float v)
{
    float r = (v + MCU_ROUND_MAGIC) - MCU_ROUND_MAGIC;
    return (int32_t)r;
}

/** Clamp v to [lo, hi] in float, NaN-safe towards lo. */
static inline float mcu_clampf(float v, float lo, float hi)
{
    if (!(v >= lo)) {
        return lo;
    }
    return v > hi ? hi : v;
}

/** Saturate an int32 to [lo, hi]. */
static inline int32_t mcu_sat(int32_t v, int32_t lo, int32_t hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* The 32-bit-only fixed-point sequence on cores without a 32x32->64 multiply instruction (ARMv6-M, ARMv8-M
 * baseline: a 64-bit product is a library call there); the host tests define MCU_REQUANT_MUL32 to check it. */
#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
#define MCU_REQUANT_MUL32 1
#endif

#if defined(MCU_REQUANT_MUL32)
/** x * m for m >= 0 as a 64-bit (hi, lo) pair from 32-bit multiplies only: x = xh 2^16 + xl, m = mh 2^16 + ml
 * (xl, ml, mh unsigned), four 16x16 products that fit 32 bits, summed with explicit carries. */
static inline void mcu_mul64_parts(int32_t x, int32_t m, uint32_t *hi, uint32_t *lo)
{
    const uint32_t xl = (uint32_t)x & 0xFFFFu, ml = (uint32_t)m & 0xFFFFu, mh = (uint32_t)m >> 16;
    const int32_t xh = x >> 16;
    const uint32_t ll = xl * ml, lh = xl * mh;
    const int32_t hl = xh * (int32_t)ml;
    const uint32_t mid_lo = ((uint32_t)hl & 0xFFFFu) + (lh & 0xFFFFu);
    *hi = (uint32_t)(xh * (int32_t)mh) + (uint32_t)(hl >> 16) + (lh >> 16) + (mid_lo >> 16);
    *lo = ll + (mid_lo << 16);
    *hi += *lo < ll;
}

/** v = vh 2^16 + vl with vl = v's low half read as int16 (in [-2^15, 2^15)) and vh = v's rounded high half (in
 * [-2^15, 2^15]; (v >> 15) + 1 halved, as v - vl may not fit int32). */
static inline void mcu_split16(int32_t v, int32_t *vh, int32_t *vl)
{
    *vl = (int16_t)v; /* SXTH: the low half modulo 2^16 (as every target compiler converts) */
    *vh = ((v >> 15) + 1) >> 1;
}
#endif

/** TFLite's SaturatingRoundingDoublingHighMul for m >= 0: floor((x * m + 2^30) / 2^31), exact for every int32 x.
 * Without a long multiply (MCU_REQUANT_MUL32): with x and m split by mcu_split16, x m + 2^30 = 2^32 xh mh +
 * 2^16 (xh ml + xl mh) + xl ml + 2^30, so the result is 2 xh mh + floor(s / 2^15) with s = xh ml + xl mh +
 * floor((xl ml + 2^30) / 2^16) (nested floors of divisions by powers of two). Every product has both factors within
 * 2^15 in magnitude, |s| <= 2^31 - 2^15 (tests/test_requant_fixed.py, test_split_products_fit_int32), xl ml + 2^30
 * lies in [2^15, 2^31] as uint32, and 2 xh mh is only needed modulo 2^32 (the result fits int32): four MULS, no
 * carries. */
static inline int32_t mcu_doubling_high_mul(int32_t x, int32_t m)
{
#if defined(MCU_REQUANT_MUL32) && defined(__GNUC__) && defined(__thumb__) && !defined(__thumb2__)
    /* The same sequence by hand (17 cycles on the Cortex-M0+): GCC copies and spills around the MULS, which
     * overwrite an operand; the constant 2^30 waits in a high register (ADD reaches it). */
    int32_t mh, ml, xh, xl, t;
    const int32_t nudge = 0x40000000;
    mcu_split16(m, &mh, &ml);
    __asm__(".syntax unified\n\t" /* GCC hands Thumb-1 assembly over in divided syntax */
            "sxth %[xl], %[x]\n\t"
            "asrs %[xh], %[x], #15\n\t"
            "adds %[xh], #1\n\t"
            "asrs %[xh], %[xh], #1\n\t"
            "mov %[t], %[xl]\n\t"
            "muls %[t], %[ml]\n\t" /* xl ml */
            "add %[t], %[nudge]\n\t"
            "lsrs %[t], %[t], #16\n\t"
            "muls %[xl], %[mh]\n\t" /* xl mh */
            "adds %[t], %[xl]\n\t"
            "mov %[xl], %[xh]\n\t"
            "muls %[xl], %[ml]\n\t" /* xh ml */
            "adds %[t], %[xl]\n\t" /* s */
            "asrs %[t], %[t], #15\n\t"
            "muls %[xh], %[mh]\n\t" /* xh mh */
            "lsls %[xh], %[xh], #1\n\t"
            "adds %[x], %[xh], %[t]\n\t"
            : [x] "+l"(x), [xh] "=&l"(xh), [xl] "=&l"(xl), [t] "=&l"(t)
            : [mh] "l"(mh), [ml] "l"(ml), [nudge] "h"(nudge)
            : "cc");
    return x;
#elif defined(MCU_REQUANT_MUL32)
    int32_t xh, xl, mh, ml, s;
    mcu_split16(x, &xh, &xl);
    mcu_split16(m, &mh, &ml);
    s = xh * ml + xl * mh + (int32_t)(((uint32_t)(xl * ml) + 0x40000000u) >> 16);
    return (int32_t)(((uint32_t)(xh * mh) << 1) + (uint32_t)(s >> 15));
#else
    return (int32_t)(((int64_t)x * m + (1 << 30)) >> 31);
#endif
}

/** Single rounding: round_half_up(x * m / 2^total) for m >= 0 and 1 <= total <= 62, from the exact product,
 * saturated to int32 (only a multiplier >= 0.5 with a large x leaves the range). */
static inline int32_t mcu_mul_round_single(int32_t x, int32_t m, int32_t total)
{
#if defined(MCU_REQUANT_MUL32)
    uint32_t hi, lo;
    mcu_mul64_parts(x, m, &hi, &lo);
    if (total <= 32) {
        const uint32_t half = 1u << (total - 1), sum = lo + half;
        hi += sum < half;
        lo = sum;
    } else {
        hi += 1u << (total - 33);
    }
    if (total < 32) {
        const int32_t top = (int32_t)hi >> (total - 1); /* bits 31 + total and up of the result: a sign extension? */
        if (top != 0 && top != -1) {
            return top < 0 ? INT32_MIN : INT32_MAX;
        }
        return (int32_t)((lo >> total) | (hi << (32 - total)));
    }
    return (int32_t)hi >> (total - 32);
#else
    const int64_t r = (int64_t)x * m + ((int64_t)1 << (total - 1));
    if (total >= 32) { /* the high word, shifted: fits int32, and compiles to a multiply-accumulate and a shift */
        return (int32_t)(r >> 32) >> (total - 32);
    }
    return (r >> total) < INT32_MIN ? INT32_MIN : ((r >> total) > INT32_MAX ? INT32_MAX : (int32_t)(r >> total));
#endif
}

/** TFLite's RoundingDivideByPOT: x / 2^e (0 <= e <= 31), rounded half away from zero. Branch-free: the remainder
 * x & mask exceeds the threshold (mask >> 1) + (x < 0) exactly when their difference is negative (both lie in
 * [0, 2^31)). */
static inline int32_t mcu_rounding_divide_by_pot(int32_t x, int32_t e)
{
    const int32_t mask = (int32_t)((1u << e) - 1u);
    const int32_t threshold = (mask >> 1) - (x >> 31);
    return (x >> e) - ((threshold - (x & mask)) >> 31);
}

/** Fixed-point parameters of one output channel, unpacked once: real multiplier = mult * 2^(left - right - 31). */
typedef struct {
    int32_t mult, left, right;
} mcu_rq_fixed;

/** Unpack a (mult, shift) pair of mcucomp/fixedpoint.py (shift < 0 is a left shift). */
static inline mcu_rq_fixed mcu_rq_fixed_unpack(int32_t mult, int32_t shift)
{
    mcu_rq_fixed f;
    f.mult = mult;
    f.left = shift < 0 ? -shift : 0;
    f.right = shift > 0 ? shift : 0;
    return f;
}

/** TFLite's MultiplyByQuantizedMultiplier (double rounding): (acc << left, wrapping) times mult in Q31, then a
 * rounding right shift. */
static inline int32_t mcu_requant_scale_fixed(int32_t acc, mcu_rq_fixed f)
{
    return mcu_rounding_divide_by_pot(mcu_doubling_high_mul((int32_t)((uint32_t)acc << f.left), f.mult), f.right);
}

/** The single-rounding scaling of acc: round_half_up(acc * mult / 2^(31 + right - left)). */
static inline int32_t mcu_requant_scale_single(int32_t acc, mcu_rq_fixed f)
{
    return mcu_mul_round_single(acc, f.mult, 31 + f.right - f.left);
}

/** TFLite's MultiplyByQuantizedMultiplier with TFLite's shift sign (shift > 0 is a left shift). */
static inline int32_t mcu_mbqm(int32_t x, int32_t mult, int32_t shift)
{
    return mcu_requant_scale_fixed(x, mcu_rq_fixed_unpack(mult, -shift));
}

/** Requantize with a Q31 multiplier and shift (fixed-point mode, no FPU needed), double (TFLite's
 * MultiplyByQuantizedMultiplier) or single rounding; saturated to [qmin - zp, qmax - zp] before zp is added, so
 * the sum cannot overflow. */
static inline int32_t mcu_requant_fixed(int32_t acc, int32_t mult, int32_t shift, int32_t single_round, int32_t zp,
                                        int32_t qmin, int32_t qmax)
{
    const mcu_rq_fixed f = mcu_rq_fixed_unpack(mult, shift);
    const int32_t v = single_round ? mcu_requant_scale_single(acc, f) : mcu_requant_scale_fixed(acc, f);
    return mcu_sat(v, qmin - zp, qmax - zp) + zp;
}

/** v rounded to the nearest integer, ties to even, saturated to int32; v must not be NaN. With a single-precision
 * FPU: VCVTR (round to nearest even in the default FPSCR mode, saturating); without one, integer operations on the
 * bits (no soft-float calls, no libm). */
static inline int32_t mcu_round_even_sat(float v)
{
#if defined(__ARM_FP) && (__ARM_FP & 4) && defined(__thumb2__)
    float bits;
    int32_t r;
    __asm__("vcvtr.s32.f32 %0, %1" : "=t"(bits) : "t"(v));
    memcpy(&r, &bits, sizeof r);
    return r;
#else
    uint32_t u, m, q;
    int32_t e;
    memcpy(&u, &v, sizeof u);
    e = (int32_t)((u >> 23) & 0xFFu);
    if (e < 126) { /* |v| < 0.5, zeros and subnormals included */
        return 0;
    }
    if (e >= 158) { /* |v| >= 2^31, infinities included */
        return (u >> 31) != 0u ? INT32_MIN : INT32_MAX;
    }
    m = (u & 0x7FFFFFu) | 0x800000u; /* |v| = m * 2^(e - 150) */
    if (e >= 150) {
        q = m << (e - 150);
    } else {
        const uint32_t s = (uint32_t)(150 - e), rem = m & ((1u << s) - 1u), half = 1u << (s - 1u);
        q = m >> s;
        q += (uint32_t)(rem > half) | ((uint32_t)(rem == half) & q);
    }
    return (u >> 31) != 0u ? -(int32_t)q : (int32_t)q;
#endif
}

/** QuantizeLinear's end on a float: clamp to [lo, hi] (NaN to lo), round half to even, add zp. Rounding before
 * clamping gives the same result, as rounding is monotonic and lo, hi are integers. */
static inline int32_t mcu_quantize_float(float v, int32_t lo, int32_t hi, int32_t zp)
{
    if (v != v) {
        return lo + zp;
    }
    return mcu_sat(mcu_round_even_sat(v), lo, hi) + zp;
}

/** Float-mode requantization of one value: (float)acc * scale [/ div when div != 0], then mcu_quantize_float to
 * [lo, hi] = [qmin - zp, qmax - zp]. */
static inline int32_t mcu_requant_float(int32_t acc, float scale, float div, int32_t lo, int32_t hi, int32_t zp)
{
    float v = (float)acc * scale;
    if (div != 0.0f) {
        v = v / div;
    }
    return mcu_quantize_float(v, lo, hi, zp);
}

/** How an int32 accumulator becomes an 8-bit value.
 * float mode (mult == NULL): v = (float)acc * scale[c]; if div != 0, v = v / div (a DequantizeLinear followed by a
 * QuantizeLinear); clamp to [qmin - zp, qmax - zp]; round half to even; add zp — onnxruntime's integer kernels.
 * fixed mode (mult != NULL): Q31 multiplier and shift per channel, TFLite's double rounding, or single rounding
 * when single_round != 0 (see mcucomp/fixedpoint.py; kernels that fill the struct by hand get double). */
typedef struct {
    const float *scale;
    const int32_t *mult;
    const int32_t *shift;
    int32_t per_channel;
    float div;
    int32_t zp, qmin, qmax;
    int32_t single_round;
} mcu_requant;

/** Apply a requantization to the accumulator of output channel ch. */
static inline int32_t mcu_requant_apply(const mcu_requant *rq, int32_t acc, int32_t ch)
{
    const int32_t c = rq->per_channel ? ch : 0;
    if (rq->mult != NULL) {
        return mcu_requant_fixed(acc, rq->mult[c], rq->shift[c], rq->single_round, rq->zp, rq->qmin, rq->qmax);
    }
    return mcu_requant_float(acc, rq->scale[c], rq->div, rq->qmin - rq->zp, rq->qmax - rq->zp, rq->zp);
}

/** mcu_requant_apply for an rq in fixed mode with double rounding (rq->mult != NULL, !rq->single_round): small
 * enough to inline at every output of a kernel's loop on cores without an FPU. */
static inline int32_t mcu_requant_fixed_double(const mcu_requant *rq, int32_t acc, int32_t ch)
{
    const int32_t c = rq->per_channel ? ch : 0;
    const mcu_rq_fixed f = mcu_rq_fixed_unpack(rq->mult[c], rq->shift[c]);
    return mcu_sat(mcu_requant_scale_fixed(acc, f), rq->qmin - rq->zp, rq->qmax - rq->zp) + rq->zp;
}

/** mcu_requant_fixed_double of two accumulators of channel ch: the channel's parameters are read and unpacked once,
 * and both results are computed before the caller stores either (an int8 store may alias the parameters). */
static MCU_INLINE void mcu_requant_fixed_pair(const mcu_requant *rq, int32_t ch, int32_t acc0, int32_t acc1,
                                          int32_t *v0, int32_t *v1)
{
    const int32_t c = rq->per_channel ? ch : 0;
    const mcu_rq_fixed f = mcu_rq_fixed_unpack(rq->mult[c], rq->shift[c]);
    const int32_t zp = rq->zp, lo = rq->qmin - zp, hi = rq->qmax - zp;
    *v0 = mcu_sat(mcu_requant_scale_fixed(acc0, f), lo, hi) + zp;
    *v1 = mcu_sat(mcu_requant_scale_fixed(acc1, f), lo, hi) + zp;
}

/** Requantize n accumulators to int8: element i belongs to channel ch0 + i * ch_step (1: one pixel's channels,
 * 0: one channel's pixels) and is stored at y[i * y_step]. The mode and the division are decided once per row and
 * the range is computed once, so the float path without div is one multiply, a clamp and the rounding trick. */
static inline void mcu_requant_row(const mcu_requant *rq, const int32_t *acc, int32_t n, int32_t ch0, int32_t ch_step,
                                   int8_t *y, int32_t y_step)
{
    const int32_t step = rq->per_channel ? ch_step : 0;
    const int32_t c0 = rq->per_channel ? ch0 : 0;
    const int32_t zp = rq->zp, lo = rq->qmin - zp, hi = rq->qmax - zp;
    int32_t i;
    if (rq->mult != NULL && !rq->single_round) { /* a loop per rounding: without a long multiply, the single one's
                                                  * registers would crowd the double one's */
        for (i = 0; i < n; ++i) {
            const int32_t c = c0 + i * step;
            const int32_t v = mcu_requant_scale_fixed(acc[i], mcu_rq_fixed_unpack(rq->mult[c], rq->shift[c]));
            y[i * y_step] = (int8_t)(mcu_sat(v, lo, hi) + zp);
        }
    } else if (rq->mult != NULL) {
        for (i = 0; i < n; ++i) {
            const int32_t c = c0 + i * step;
            const int32_t v = mcu_requant_scale_single(acc[i], mcu_rq_fixed_unpack(rq->mult[c], rq->shift[c]));
            y[i * y_step] = (int8_t)(mcu_sat(v, lo, hi) + zp);
        }
    } else if (rq->div == 0.0f) {
        for (i = 0; i < n; ++i) {
            y[i * y_step] = (int8_t)mcu_requant_float(acc[i], rq->scale[c0 + i * step], 0.0f, lo, hi, zp);
        }
    } else {
        for (i = 0; i < n; ++i) {
            y[i * y_step] = (int8_t)mcu_requant_float(acc[i], rq->scale[c0 + i * step], rq->div, lo, hi, zp);
        }
    }
}

/** mcu_requant_apply for a plain rq (float mode without div, every scale finite, so (float)acc * scale is never
 * NaN; the compiler decides: mcucomp/quant.py Requant.plain), given the channel's scale: round the product (no NaN test), add zp saturating (QADD; the int32 saturation lies outside [qmin, qmax], so this equals clamping before
 * adding zp), clamp to [qmin, qmax]. */
static inline int32_t mcu_requant_plain_scaled(const mcu_requant *rq, int32_t acc, float scale)
{
    const int32_t r = mcu_round_even_sat((float)acc * scale);
#if defined(__ARM_FEATURE_DSP) && defined(__GNUC__)
    int32_t v;
    __asm__("qadd %0, %1, %2" : "=r"(v) : "r"(r), "r"(rq->zp));
    return mcu_sat(v, rq->qmin, rq->qmax);
#else
    return mcu_sat(r, rq->qmin - rq->zp, rq->qmax - rq->zp) + rq->zp;
#endif
}

/** mcu_requant_plain_scaled for the full int8 range (qmin -128, qmax 127): one SSAT on DSP cores. */
static inline int32_t mcu_requant_plain_s8(const mcu_requant *rq, int32_t acc, float scale)
{
    const int32_t r = mcu_round_even_sat((float)acc * scale);
#if defined(__ARM_FEATURE_DSP) && defined(__GNUC__)
    int32_t v;
    __asm__("qadd %0, %1, %2\n\tssat %0, #8, %0" : "=&r"(v) : "r"(r), "r"(rq->zp));
    return v;
#else
    return mcu_sat(r, -128 - rq->zp, 127 - rq->zp) + rq->zp;
#endif
}

/** mcu_requant_apply for a plain rq (mcu_requant_plain_scaled with channel ch's scale). */
static inline int32_t mcu_requant_plain(const mcu_requant *rq, int32_t acc, int32_t ch)
{
    return mcu_requant_plain_scaled(rq, acc, rq->scale[rq->per_channel ? ch : 0]);
}

/* MCU_F32_LOADS_FIRST(a, b, c, d): an empty statement that the compiler must see four float values (in FPU
 * registers) complete for, so that their loads issue back to back ahead of the arithmetic: on the Cortex-M4 and M33 a
 * VLDR that follows another load takes 1 cycle instead of 2, and GCC's scheduler otherwise interleaves each load with
 * the arithmetic that uses it. It emits no instruction and changes no value. */
#if defined(__GNUC__) && defined(__ARM_FP) && defined(__thumb2__)
#define MCU_F32_LOADS_FIRST(a, b, c, d) __asm__("" : "+t"(a), "+t"(b), "+t"(c), "+t"(d))
#else
#define MCU_F32_LOADS_FIRST(a, b, c, d) ((void)0)
#endif

/* MCU_F32_SOFT: float arithmetic runs in software (ARMv6-M, ARMv8-M baseline: no floating-point unit). A software
 * float comparison is a library call of tens of cycles, while the integer order of mcu_f32_key is a few
 * instructions: kernels that only compare and select floats (clamp, max pooling) take their loops through the bits
 * there; loops of library calls are not unrolled (binary_f32). Host builds may define it to run those loops. */
#if defined(__arm__) && !defined(__ARM_FP)
#define MCU_F32_SOFT 1
#endif

/** The bits of a float. */
static inline uint32_t mcu_f32_bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/** Whether the float whose bits are u is a NaN. */
static inline int32_t mcu_f32_bits_nan(uint32_t u)
{
    return (u & 0x7FFFFFFFu) > 0x7F800000u;
}

/** An integer in the order of the float whose bits are u (not a NaN): -|v| for negative v, so -0 and +0 both map to
 * 0 and compare equal, as the floats do; a < b for floats exactly when key(a) < key(b). */
static inline int32_t mcu_f32_key(uint32_t u)
{
    return (int32_t)u < 0 ? -(int32_t)(u & 0x7FFFFFFFu) : (int32_t)u;
}

/** a > b as the float comparison computes it (false when a is a NaN), through the bits; b must not be a NaN. */
static inline int32_t mcu_f32_greater(float a, float b)
{
    const uint32_t ua = mcu_f32_bits(a);
    return !mcu_f32_bits_nan(ua) && mcu_f32_key(ua) > mcu_f32_key(mcu_f32_bits(b));
}

/** Geometry shared by convolutions and pooling (NCHW, 1-D ops use h = 1). */
typedef struct {
    int32_t n, c_in, h_in, w_in;
    int32_t c_out, h_out, w_out;
    int32_t k_h, k_w, stride_h, stride_w, dil_h, dil_w, pad_t, pad_l;
    int32_t group;
} mcu_conv_geom;

/* Element types, numbered as ONNX's TensorProto.DataType, for kernels that take a `dtype` param. */
#define MCU_DT_FLOAT 1
#define MCU_DT_UINT8 2
#define MCU_DT_INT8 3
#define MCU_DT_UINT16 4
#define MCU_DT_INT16 5
#define MCU_DT_INT32 6
#define MCU_DT_INT64 7
#define MCU_DT_BOOL 9
#define MCU_DT_DOUBLE 11
#define MCU_DT_UINT32 12
#define MCU_DT_UINT64 13

/** Element i of an integer or bool tensor, sign- or zero-extended to 64 bits (uint64: its bits). */
static inline int64_t mcu_get_int(const void *x, int32_t dtype, int32_t i)
{
    switch (dtype) {
    case MCU_DT_UINT8:
    case MCU_DT_BOOL:
        return ((const uint8_t *)x)[i];
    case MCU_DT_INT8:
        return ((const int8_t *)x)[i];
    case MCU_DT_UINT16:
        return ((const uint16_t *)x)[i];
    case MCU_DT_INT16:
        return ((const int16_t *)x)[i];
    case MCU_DT_INT32:
        return ((const int32_t *)x)[i];
    case MCU_DT_UINT32:
        return ((const uint32_t *)x)[i];
    default:
        return ((const int64_t *)x)[i]; /* int64, and uint64 read as its bits */
    }
}

/** Store the low bits of v as element i of an integer or bool tensor (wraps like a C unsigned conversion: signed
 * elements are written through the unsigned type of their width, which C lets alias them). */
static inline void mcu_set_int(void *y, int32_t dtype, int32_t i, uint64_t v)
{
    switch (dtype) {
    case MCU_DT_INT16:
    case MCU_DT_UINT16:
        ((uint16_t *)y)[i] = (uint16_t)v;
        break;
    case MCU_DT_INT32:
    case MCU_DT_UINT32:
        ((uint32_t *)y)[i] = (uint32_t)v;
        break;
    case MCU_DT_INT64:
    case MCU_DT_UINT64:
        ((uint64_t *)y)[i] = v;
        break;
    default: /* 8-bit types and bool */
        ((uint8_t *)y)[i] = (uint8_t)v;
        break;
    }
}

/** Broadcast iteration over up to MCU_MAX_RANK dims: output dims and each input's element strides (0 = broadcast). */
#define MCU_MAX_RANK 6
typedef struct {
    int32_t rank;
    int32_t dims[MCU_MAX_RANK];
    int32_t a_strides[MCU_MAX_RANK];
    int32_t b_strides[MCU_MAX_RANK];
} mcu_bcast;

/** Advance a broadcast counter by one output element; updates the two input offsets. */
static inline void mcu_bcast_next(const mcu_bcast *bc, int32_t *idx, int32_t *ia, int32_t *ib)
{
    int32_t d;
    for (d = bc->rank - 1; d >= 0; --d) {
        idx[d] += 1;
        *ia += bc->a_strides[d];
        *ib += bc->b_strides[d];
        if (idx[d] < bc->dims[d]) {
            return;
        }
        *ia -= bc->a_strides[d] * bc->dims[d];
        *ib -= bc->b_strides[d] * bc->dims[d];
        idx[d] = 0;
    }
}

#endif
