#include "dequantize_linear.h"

/** Element i of an 8-bit tensor less its zero point. */
static inline int32_t mcu_dequantize_linear_centred(const void *x, int32_t is_signed, int32_t i, int32_t zp)
{
    return (is_signed ? (int32_t)((const int8_t *)x)[i] : (int32_t)((const uint8_t *)x)[i]) - zp;
}

/** Per tensor from int8 (is_signed, a constant at each call site) or uint8: scale and zero point stay in
 * registers; the difference fits in int32. Four
 * elements a turn, each group read before it is written (an output placed over its input stays correct). */
static MCU_INLINE void mcu_dequantize_linear_8bit(int32_t count, const void *x, float scale, int32_t zp,
                                                  int32_t is_signed, float *y)
{
    int32_t i;
    for (i = 0; i + 4 <= count; i += 4) {
        const int32_t a = mcu_dequantize_linear_centred(x, is_signed, i, zp);
        const int32_t b = mcu_dequantize_linear_centred(x, is_signed, i + 1, zp);
        const int32_t c = mcu_dequantize_linear_centred(x, is_signed, i + 2, zp);
        const int32_t d = mcu_dequantize_linear_centred(x, is_signed, i + 3, zp);
        y[i] = (float)a * scale;
        y[i + 1] = (float)b * scale;
        y[i + 2] = (float)c * scale;
        y[i + 3] = (float)d * scale;
    }
    for (; i < count; ++i) {
        y[i] = (float)mcu_dequantize_linear_centred(x, is_signed, i, zp) * scale;
    }
}

/* q - zp in int64: no signed overflow for int32 data far from its zero point (where onnxruntime's int32 difference
 * wraps). Narrower types convert from int32, which the FPU does in one instruction. */
void mcu_dequantize_linear(const mcu_dequantize_linear_params *p, const void *x, const float *scale,
                           const void *zero_point, float *y)
{
    int32_t o, c, i;
    int32_t at = 0;
    if (p->q_outer == 0 && p->q_channel == 0 && p->q_inner == 0
        && (p->dtype == MCU_DT_INT8 || p->dtype == MCU_DT_UINT8)) {
        const int32_t zp = zero_point ? (int32_t)mcu_get_int(zero_point, p->dtype, 0) : 0;
        if (p->dtype == MCU_DT_INT8) {
            mcu_dequantize_linear_8bit(p->outer * p->channels * p->inner, x, scale[0], zp, 1, y);
        } else {
            mcu_dequantize_linear_8bit(p->outer * p->channels * p->inner, x, scale[0], zp, 0, y);
        }
        return;
    }
    for (o = 0; o < p->outer; ++o) {
        for (c = 0; c < p->channels; ++c) {
            int32_t q_at = o * p->q_outer + (c / p->block) * p->q_channel;
            for (i = 0; i < p->inner; ++i, ++at, q_at += p->q_inner) {
                const int64_t zp = zero_point ? mcu_get_int(zero_point, p->dtype, q_at) : 0;
                const int64_t d = mcu_get_int(x, p->dtype, at) - zp;
                y[at] = (p->dtype == MCU_DT_INT32 ? (float)d : (float)(int32_t)d) * scale[q_at];
            }
        }
    }
}
