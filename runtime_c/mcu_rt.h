/* mcucomp runtime: shared types and arithmetic helpers.
 * Every identifier starting with mcu_/MCU_ is renamed to the model's prefix when the file is emitted,
 * so several models link into one image. C99, no malloc, no stdio, no writable globals. */
#ifndef MCU_RT_H
#define MCU_RT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* 1.5 * 2^23: adding and subtracting it rounds a float with |v| < 2^22 to an integer, half to even,
 * in the default rounding mode, exactly as onnxruntime's MLAS requantization does. */
#define MCU_ROUND_MAGIC 12582912.0f

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

/** Requantize with an int32 multiplier in Q31 and a right shift (fixed-point mode, no FPU needed). */
static inline int32_t mcu_requant_fixed(int32_t acc, int32_t mult, int32_t shift, int32_t zp, int32_t qmin,
                                        int32_t qmax)
{
    int64_t prod = (int64_t)acc * (int64_t)mult;
    int32_t total = 31 + shift;
    int64_t rounded = (prod + ((int64_t)1 << (total - 1))) >> total;
    int64_t v = rounded + zp;
    return (int32_t)(v < qmin ? qmin : (v > qmax ? qmax : v));
}

/* TFLite's MultiplyByQuantizedMultiplier (two roundings), the `fixed` mode of the elementwise kernels (add_s8,
 * mul_s8); numpy reference in mcucomp/fixedpoint.py. H10b's version of these helpers wins at merge. */

/** gemmlowp SaturatingRoundingDoublingHighMul: (a*b + nudge) / 2^31 truncated; INT32_MIN * INT32_MIN saturates. */
static inline int32_t mcu_srdhm(int32_t a, int32_t b)
{
    int64_t ab = (int64_t)a * (int64_t)b;
    int64_t nudge = ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
    if (a == b && a == INT32_MIN) {
        return INT32_MAX;
    }
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/** gemmlowp RoundingDivideByPOT: x / 2^exponent rounded half away from zero (0 <= exponent <= 31). */
static inline int32_t mcu_rdbpot(int32_t x, int32_t exponent)
{
    const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/** TFLite MultiplyByQuantizedMultiplier: shift > 0 shifts x left first (wrapping), shift < 0 rounds right after. */
static inline int32_t mcu_mbqm(int32_t x, int32_t mult, int32_t shift)
{
    const int32_t left = shift > 0 ? shift : 0;
    return mcu_rdbpot(mcu_srdhm((int32_t)((uint32_t)x << left), mult), shift > 0 ? 0 : -shift);
}

/** How an int32 accumulator becomes an 8-bit value.
 * float mode (mult == NULL): v = (float)acc * scale[c]; if div != 0, v = v / div (a DequantizeLinear followed by a
 * QuantizeLinear); clamp to [qmin - zp, qmax - zp]; round half to even; add zp — onnxruntime's integer kernels.
 * fixed mode (mult != NULL): Q31 multiplier and right shift per channel, round half up (see mcucomp/fixedpoint.py). */
typedef struct {
    const float *scale;
    const int32_t *mult;
    const int32_t *shift;
    int32_t per_channel;
    float div;
    int32_t zp, qmin, qmax;
} mcu_requant;

/** Apply a requantization to the accumulator of output channel ch. */
static inline int32_t mcu_requant_apply(const mcu_requant *rq, int32_t acc, int32_t ch)
{
    const int32_t c = rq->per_channel ? ch : 0;
    float v;
    if (rq->mult != NULL) {
        return mcu_requant_fixed(acc, rq->mult[c], rq->shift[c], rq->zp, rq->qmin, rq->qmax);
    }
    v = (float)acc * rq->scale[c];
    if (rq->div != 0.0f) {
        v = v / rq->div;
    }
    v = mcu_clampf(v, (float)(rq->qmin - rq->zp), (float)(rq->qmax - rq->zp));
    return mcu_round_even(v) + rq->zp;
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
