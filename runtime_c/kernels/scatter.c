#include "scatter.h"

/* dst = dst (op) src for one element of type T: integers through the unsigned type U (wrapping, no UB); float
 * max and min propagate NaN, as numpy's maximum and minimum. */
#define MCU_SCATTER_INT(T, U)                                                                                        \
    {                                                                                                                \
        T a, b;                                                                                                      \
        memcpy(&a, dst, sizeof a);                                                                                   \
        memcpy(&b, src, sizeof b);                                                                                   \
        a = red == MCU_SCATTER_ADD   ? (T)((U)a + (U)b)                                                              \
            : red == MCU_SCATTER_MUL ? (T)((U)a * (U)b)                                                              \
            : red == MCU_SCATTER_MAX ? (b > a ? b : a)                                                               \
                                     : (b < a ? b : a);                                                              \
        memcpy(dst, &a, sizeof a);                                                                                   \
    }                                                                                                                \
    break
#define MCU_SCATTER_FLOAT(T)                                                                                         \
    {                                                                                                                \
        T a, b;                                                                                                      \
        memcpy(&a, dst, sizeof a);                                                                                   \
        memcpy(&b, src, sizeof b);                                                                                   \
        a = red == MCU_SCATTER_ADD   ? a + b                                                                         \
            : red == MCU_SCATTER_MUL ? a * b                                                                         \
            : red == MCU_SCATTER_MAX ? (b > a || b != b ? b : a)                                                     \
                                     : (b < a || b != b ? b : a);                                                    \
        memcpy(dst, &a, sizeof a);                                                                                   \
    }                                                                                                                \
    break

static void mcu_scatter_combine(int32_t dtype, int32_t red, size_t es, uint8_t *dst, const uint8_t *src)
{
    if (red == MCU_SCATTER_NONE) {
        memcpy(dst, src, es);
        return;
    }
    if (dtype == MCU_DT_BOOL && red == MCU_SCATTER_ADD) {
        red = MCU_SCATTER_MAX; /* bool addition is logical or */
    }
    switch (dtype) {
    case MCU_DT_FLOAT: MCU_SCATTER_FLOAT(float);
    case MCU_DT_DOUBLE: MCU_SCATTER_FLOAT(double);
    case MCU_DT_INT8: MCU_SCATTER_INT(int8_t, uint32_t);
    case MCU_DT_UINT8: MCU_SCATTER_INT(uint8_t, uint32_t);
    case MCU_DT_BOOL: MCU_SCATTER_INT(uint8_t, uint32_t);
    case MCU_DT_INT16: MCU_SCATTER_INT(int16_t, uint32_t);
    case MCU_DT_UINT16: MCU_SCATTER_INT(uint16_t, uint32_t);
    case MCU_DT_INT32: MCU_SCATTER_INT(int32_t, uint32_t);
    case MCU_DT_UINT32: MCU_SCATTER_INT(uint32_t, uint32_t);
    case MCU_DT_INT64: MCU_SCATTER_INT(int64_t, uint64_t);
    default: MCU_SCATTER_INT(uint64_t, uint64_t);
    }
}

void mcu_scatter(const mcu_scatter_params *p, const void *data, const void *idx, const void *updates, void *y)
{
    const size_t es = (size_t)p->elem_bytes;
    const uint8_t *upd = (const uint8_t *)updates;
    uint8_t *out = (uint8_t *)y;
    int32_t pos[MCU_MAX_RANK] = {0};
    int32_t base = 0, i, t, e, d;
    if (y != data) {
        memcpy(y, data, (size_t)p->total * es);
    }
    for (i = 0; i < p->count; ++i) {
        int32_t at = 0;
        if (p->mode == MCU_SCATTER_ELEMENTS) {
            const int32_t j = mcu_index_wrap(mcu_index_load(idx, p->idx_dtype, i), p->axis_len);
            at = j < 0 ? -1 : base + j * p->axis_stride;
            for (d = p->rank - 1; d >= 0; --d) {
                base += p->strides[d];
                if (++pos[d] < p->dims[d]) {
                    break;
                }
                base -= p->strides[d] * p->dims[d];
                pos[d] = 0;
            }
        } else {
            for (t = 0; t < p->k && at >= 0; ++t) {
                const int32_t j = mcu_index_wrap(mcu_index_load(idx, p->idx_dtype, i * p->k + t), p->dims[t]);
                at = j < 0 ? -1 : at + j * p->strides[t];
            }
        }
        for (e = 0; e < p->unit_elems && at >= 0; ++e) {
            mcu_scatter_combine(p->dtype, p->reduction, es, out + ((size_t)at + e) * es,
                                upd + ((size_t)i * p->unit_elems + e) * es);
        }
    }
}
