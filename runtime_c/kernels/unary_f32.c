#include "unary_f32.h"
#include <math.h>

/** max(0, min(1, alpha * x + beta)), rounded after each operation as onnxruntime does. */
static float mcu_unary_hard_sigmoid(const mcu_unary_f32_params *p, float v)
{
    const float s = p->alpha * v + p->beta;
    return s > 1.0f ? 1.0f : (s > 0.0f ? s : (s != s ? s : 0.0f));
}

/** One element; every case is exactly rounded (one IEEE operation or none). */
static float mcu_unary_apply(const mcu_unary_f32_params *p, float v)
{
    switch (p->op) {
    case MCU_UNARY_ABS:
        return fabsf(v);
    case MCU_UNARY_NEG:
        return -v;
    case MCU_UNARY_FLOOR:
        return floorf(v);
    case MCU_UNARY_CEIL:
        return ceilf(v);
    case MCU_UNARY_ROUND:
        return rintf(v); /* halves to even in the default rounding mode, as ONNX Round */
    case MCU_UNARY_SIGN:
        return v > 0.0f ? 1.0f : (v < 0.0f ? -1.0f : (v != v ? v : 0.0f));
    case MCU_UNARY_RECIPROCAL:
        return 1.0f / v;
    case MCU_UNARY_SQRT:
        return sqrtf(v);
    case MCU_UNARY_SOFTSIGN:
        /* +-inf gives the limit +-1 instead of inf / inf. */
        return fabsf(v) == INFINITY ? copysignf(1.0f, v) : v / (1.0f + fabsf(v));
    case MCU_UNARY_HARDSIGMOID:
        return mcu_unary_hard_sigmoid(p, v);
    case MCU_UNARY_HARDSWISH:
        return v * mcu_unary_hard_sigmoid(p, v);
    case MCU_UNARY_THRESHOLDED_RELU:
        return v > p->alpha ? v : 0.0f; /* NaN gives 0, as onnxruntime and the ONNX reference */
    default: /* MCU_UNARY_SHRINK; NaN gives 0 as above */
        return v < -p->alpha ? v + p->beta : (v > p->alpha ? v - p->beta : 0.0f);
    }
}

void mcu_unary_f32(const mcu_unary_f32_params *p, const float *x, float *y)
{
    int32_t i;
    for (i = 0; i < p->count; ++i) {
        y[i] = mcu_unary_apply(p, x[i]);
    }
}
