#include "reduce.h"
#include "mcu_math.h"

/* ln(s) for any double; mcu_log_d covers positive normal numbers only, subnormals are scaled by 2^54 first. */
static double mcu_reduce_log_d(double s)
{
    if (!(s > 0.0)) {
        return s == 0.0 ? -(double)INFINITY : (s != s ? s : (double)NAN);
    }
    if (s == (double)INFINITY) {
        return s;
    }
    if (s < 2.2250738585072014e-308) {
        return mcu_log_d(s * 18014398509481984.0) - 54.0 * 0.69314718055994531;
    }
    return mcu_log_d(s);
}

/* One output of a float reduction. The accumulator has the element type and takes the reduced elements in the
 * row-major order of the reduced dims (sequentially, from the op's identity); Mean divides the sum by the count;
 * LogSumExp subtracts the largest finite element before exponentiating and adds it back after the log. A walk
 * returns to its start after a full cycle, so the two LogSumExp passes reuse idx and off. */
#define MCU_REDUCE_FLOAT(NAME, T, SQRT, LOG, EXP)                                                                   \
    static T NAME(const mcu_reduce_params *p, const T *x, int32_t base)                                            \
    {                                                                                                              \
        int32_t idx[MCU_MAX_RANK] = {0};                                                                           \
        int32_t off[MCU_WALK_OPS] = {0};                                                                           \
        const int32_t n = mcu_walk_count(&p->inner);                                                               \
        T acc = 0, m = 0;                                                                                          \
        int32_t i;                                                                                                 \
        off[0] = base;                                                                                             \
        if (p->op == MCU_REDUCE_MAX || p->op == MCU_REDUCE_MIN) {                                                  \
            const int32_t is_max = p->op == MCU_REDUCE_MAX;                                                        \
            acc = is_max ? -(T)INFINITY : (T)INFINITY;                                                             \
            for (i = 0; i < n; ++i) {                                                                              \
                const T v = x[off[0]];                                                                             \
                if ((is_max ? v > acc : v < acc) || v != v) {                                                      \
                    acc = v;                                                                                       \
                }                                                                                                  \
                if (acc != acc) {                                                                                  \
                    break; /* NaN propagates */                                                                    \
                }                                                                                                  \
                mcu_walk_next(&p->inner, idx, off);                                                                \
            }                                                                                                      \
            return acc;                                                                                            \
        }                                                                                                          \
        if (p->op == MCU_REDUCE_LOG_SUM_EXP) {                                                                     \
            int32_t found = 0;                                                                                     \
            for (i = 0; i < n; ++i) {                                                                              \
                const T v = x[off[0]];                                                                             \
                if (v - v == 0 && (!found || v > m)) {                                                             \
                    m = v;                                                                                         \
                    found = 1;                                                                                     \
                }                                                                                                  \
                mcu_walk_next(&p->inner, idx, off);                                                                \
            }                                                                                                      \
            for (i = 0; i < n; ++i) {                                                                              \
                acc += EXP(x[off[0]] - m);                                                                         \
                mcu_walk_next(&p->inner, idx, off);                                                                \
            }                                                                                                      \
            return LOG(acc) + m;                                                                                   \
        }                                                                                                          \
        acc = p->op == MCU_REDUCE_PROD ? 1 : 0;                                                                    \
        for (i = 0; i < n; ++i) {                                                                                  \
            const T v = x[off[0]];                                                                                 \
            switch (p->op) {                                                                                       \
            case MCU_REDUCE_PROD:                                                                                  \
                acc *= v;                                                                                          \
                break;                                                                                             \
            case MCU_REDUCE_L1:                                                                                    \
                acc += v < 0 ? -v : v;                                                                             \
                break;                                                                                             \
            case MCU_REDUCE_L2:                                                                                    \
            case MCU_REDUCE_SUM_SQUARE:                                                                            \
                acc += v * v;                                                                                      \
                break;                                                                                             \
            default:                                                                                               \
                acc += v;                                                                                          \
                break;                                                                                             \
            }                                                                                                      \
            mcu_walk_next(&p->inner, idx, off);                                                                    \
        }                                                                                                          \
        switch (p->op) {                                                                                           \
        case MCU_REDUCE_MEAN:                                                                                      \
            return acc / (T)n;                                                                                     \
        case MCU_REDUCE_L2:                                                                                        \
            return SQRT(acc);                                                                                      \
        case MCU_REDUCE_LOG_SUM:                                                                                   \
            return LOG(acc);                                                                                       \
        default:                                                                                                   \
            return acc;                                                                                            \
        }                                                                                                          \
    }

MCU_REDUCE_FLOAT(mcu_reduce_one_f32, float, sqrtf, mcu_logf, mcu_expf)
MCU_REDUCE_FLOAT(mcu_reduce_one_f64, double, sqrt, mcu_reduce_log_d, mcu_exp_d)

/* The stored bits of Max's (is_max) or Min's identity for an integer dtype: the type's lowest or highest value
 * (bool: false, true). */
static uint64_t mcu_reduce_int_identity(int32_t dtype, int32_t is_max)
{
    const int32_t bits = 8 * mcu_dtype_bytes(dtype);
    const uint64_t all = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    const int32_t is_signed = dtype == MCU_DT_INT8 || dtype == MCU_DT_INT16 || dtype == MCU_DT_INT32 ||
                              dtype == MCU_DT_INT64;
    if (dtype == MCU_DT_BOOL) {
        return is_max ? 0 : 1;
    }
    if (is_signed) {
        return is_max ? (uint64_t)1 << (bits - 1) : all >> 1;
    }
    return is_max ? 0 : all;
}

/* One output of an integer reduction, stored as y[o]. Sums and products wrap in uint64 and keep the low bits of the
 * type (as ONNX's integer arithmetic does); Mean divides that wrapped sum by the count, truncating. */
static void mcu_reduce_one_int(const mcu_reduce_params *p, const void *x, void *y, int32_t o, int32_t base)
{
    int32_t idx[MCU_MAX_RANK] = {0};
    int32_t off[MCU_WALK_OPS] = {0};
    const int32_t n = mcu_walk_count(&p->inner);
    uint64_t acc = p->op == MCU_REDUCE_PROD ? 1 : 0;
    int32_t i, best = base;
    off[0] = base;
    for (i = 0; i < n; ++i) {
        const int64_t v = mcu_get_int(x, p->dtype, off[0]);
        switch (p->op) {
        case MCU_REDUCE_MAX:
            best = mcu_elem_cmp(x, off[0], x, best, p->dtype) > 0 ? off[0] : best;
            break;
        case MCU_REDUCE_MIN:
            best = mcu_elem_cmp(x, off[0], x, best, p->dtype) < 0 ? off[0] : best;
            break;
        case MCU_REDUCE_PROD:
            acc *= (uint64_t)v;
            break;
        case MCU_REDUCE_L1:
            acc += v < 0 && p->dtype != MCU_DT_UINT64 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
            break;
        case MCU_REDUCE_SUM_SQUARE:
            acc += (uint64_t)v * (uint64_t)v;
            break;
        default:
            acc += (uint64_t)v;
            break;
        }
        mcu_walk_next(&p->inner, idx, off);
    }
    if (p->op == MCU_REDUCE_MAX || p->op == MCU_REDUCE_MIN) {
        acc = n > 0 ? (uint64_t)mcu_get_int(x, p->dtype, best)
                    : mcu_reduce_int_identity(p->dtype, p->op == MCU_REDUCE_MAX);
    }
    mcu_set_int(y, p->dtype, o, acc);
    if (p->op == MCU_REDUCE_MEAN && n > 0) {
        const int64_t sum = mcu_get_int(y, p->dtype, o);
        acc = p->dtype == MCU_DT_UINT64 ? (uint64_t)sum / (uint64_t)n : (uint64_t)(sum / n);
        mcu_set_int(y, p->dtype, o, acc);
    }
}

void mcu_reduce(const mcu_reduce_params *p, const void *x, void *y)
{
    int32_t idx[MCU_MAX_RANK] = {0};
    int32_t off[MCU_WALK_OPS] = {0};
    const int32_t count = mcu_walk_count(&p->outer);
    int32_t o;
    for (o = 0; o < count; ++o) {
        if (p->dtype == MCU_DT_FLOAT) {
            ((float *)y)[o] = mcu_reduce_one_f32(p, (const float *)x, off[0]);
        } else if (p->dtype == MCU_DT_DOUBLE) {
            ((double *)y)[o] = mcu_reduce_one_f64(p, (const double *)x, off[0]);
        } else {
            mcu_reduce_one_int(p, x, y, o, off[0]);
        }
        mcu_walk_next(&p->outer, idx, off);
    }
}
