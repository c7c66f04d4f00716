#include "quantize_linear.h"

#include <float.h>

/* The per-tensor 8-bit path multiplies by r = 1 / scale and divides only where that could round differently.
 *
 * With r normal, y = x * r differs from the true quotient t = x / scale by at most 2u|t| and from v = fl(t), what
 * onnxruntime rounds, by at most 3u|t| (u = 2^-24). While |y| < 512 that is below 2^-13, so when y lies more than
 * 2^-12 from the nearest half-integer, y and v round to the same integer n. When |y| >= 512 both quotients lie far
 * outside every 8-bit range once the zero point is added, and n saturates the same way. Everything else (a near tie,
 * NaN) takes the division. NaN goes to the type's minimum, as onnxruntime's float clamp sends it. */
#define MCU_QUANTIZE_LINEAR_NEAR_TIE (0.5f - 1.0f / 4096.0f)

/** round_half_even(x / scale) saturated to int32 from y = x * (1 / scale); qmin_minus_zp for NaN. |d| is compared
 * on its bits: without the sign bit, non-NaN floats order as their bits do, and NaN's bits lie above the bound. */
static inline int32_t mcu_quantize_linear_round(float x, float scale, float y, int32_t qmin_minus_zp)
{
    const float near_tie = MCU_QUANTIZE_LINEAR_NEAR_TIE;
    const int32_t n = mcu_round_even_sat(y);
    const float d = y - (float)n;
    uint32_t d_bits, tie_bits;
    float v;
    memcpy(&d_bits, &d, sizeof d_bits);
    memcpy(&tie_bits, &near_tie, sizeof tie_bits);
    if (!MCU_RARE((d_bits & 0x7FFFFFFFu) > tie_bits) || y >= 512.0f || y <= -512.0f) {
        return n;
    }
    v = x / scale;
    return v != v ? qmin_minus_zp : mcu_round_even_sat(v);
}

/** n + zp clamped to int8 (is_signed) or uint8. On DSP cores QADD then SSAT/USAT: n is saturated to int32, far
 * outside every 8-bit range, so this equals clamping n to [qmin - zp, qmax - zp] before adding zp. */
static MCU_INLINE int32_t mcu_quantize_linear_to8(int32_t n, int32_t zp, int32_t is_signed)
{
#if defined(__ARM_FEATURE_DSP) && defined(__GNUC__)
    int32_t q;
    if (is_signed) {
        __asm__("qadd %0, %1, %2\n\tssat %0, #8, %0" : "=&r"(q) : "r"(n), "r"(zp));
    } else {
        __asm__("qadd %0, %1, %2\n\tusat %0, #8, %0" : "=&r"(q) : "r"(n), "r"(zp));
    }
    return q;
#else
    return is_signed ? mcu_sat(n, -128 - zp, 127 - zp) + zp : mcu_sat(n, -zp, 255 - zp) + zp;
#endif
}

/** Per tensor into int8 (is_signed, a constant at each call site) or uint8, given r = 1 / scale (a normal float):
 * bytes are stored (both types keep the low byte). */
static MCU_INLINE void mcu_quantize_linear_8bit(int32_t count, const float *x, float scale, float r, int32_t zp,
                                                int32_t is_signed, uint8_t *y)
{
    const int32_t qmin_minus_zp = (is_signed ? -128 : 0) - zp;
    int32_t i;
    for (i = 0; i < count; ++i) {
        const int32_t n = mcu_quantize_linear_round(x[i], scale, x[i] * r, qmin_minus_zp);
        y[i] = (uint8_t)mcu_quantize_linear_to8(n, zp, is_signed);
    }
}

/* onnxruntime MLAS (quantize.cpp): x / scale (a true division), clamp in float to [qmin - zp, qmax - zp] with NaN
 * going to the minimum, round half to even, add the zero point. Clamping first keeps |v| < 2^22 for
 * mcu_round_even, and since the bounds are integers it equals ONNX's round, add, then saturate. */
void mcu_quantize_linear(const mcu_quantize_linear_params *p, const float *x, const float *scale,
                         const void *zero_point, void *y)
{
    const float r = 1.0f / scale[0]; /* the per-tensor 8-bit path's, where it is a normal float */
    int32_t qmin, qmax, o, c, i;
    int32_t at = 0;
    if (p->q_outer == 0 && p->q_channel == 0 && p->q_inner == 0 && (p->dtype == MCU_DT_INT8 || p->dtype == MCU_DT_UINT8)
        && ((r >= FLT_MIN && r <= FLT_MAX) || (r <= -FLT_MIN && r >= -FLT_MAX))) {
        const int32_t zp = zero_point ? (int32_t)mcu_get_int(zero_point, p->dtype, 0) : 0;
        const int32_t count = p->outer * p->channels * p->inner;
        if (p->dtype == MCU_DT_INT8) {
            mcu_quantize_linear_8bit(count, x, scale[0], r, zp, 1, (uint8_t *)y);
        } else {
            mcu_quantize_linear_8bit(count, x, scale[0], r, zp, 0, (uint8_t *)y);
        }
        return;
    }
    switch (p->dtype) {
    case MCU_DT_INT8:
        qmin = -128;
        qmax = 127;
        break;
    case MCU_DT_INT16:
        qmin = -32768;
        qmax = 32767;
        break;
    case MCU_DT_UINT16:
        qmin = 0;
        qmax = 65535;
        break;
    default:
        qmin = 0;
        qmax = 255;
        break;
    }
    for (o = 0; o < p->outer; ++o) {
        for (c = 0; c < p->channels; ++c) {
            int32_t q_at = o * p->q_outer + (c / p->block) * p->q_channel;
            for (i = 0; i < p->inner; ++i, ++at, q_at += p->q_inner) {
                const int32_t zp = zero_point ? (int32_t)mcu_get_int(zero_point, p->dtype, q_at) : 0;
                const float lo = (float)(qmin - zp), hi = (float)(qmax - zp);
                const int32_t q = mcu_round_even(mcu_clampf(x[at] / scale[q_at], lo, hi)) + zp;
                mcu_set_int(y, p->dtype, at, (uint64_t)(int64_t)q);
            }
        }
    }
}
