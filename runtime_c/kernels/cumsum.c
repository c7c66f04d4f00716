#include "cumsum.h"

/* One typed loop: T is the element type (unsigned for integers, so sums and products wrap without undefined
 * behaviour). As in onnxruntime, an inclusive sum copies the first element of each line (-0.0 stays -0.0) while an
 * exclusive one adds it to 0 (multiplies it into 1 for a product). */
#define MCU_CUMSUM_LOOP(T)                                                                                         \
    do {                                                                                                           \
        const T *in = (const T *)x;                                                                                \
        T *out = (T *)y;                                                                                           \
        for (o = 0; o < p->outer; ++o) {                                                                           \
            for (i = 0; i < p->inner; ++i) {                                                                       \
                const int32_t base = o * p->len * p->inner + i;                                                    \
                T acc = p->product ? (T)1 : (T)0;                                                                  \
                for (n = 0; n < p->len; ++n) {                                                                     \
                    const int32_t at = base + (p->reverse ? p->len - 1 - n : n) * p->inner;                        \
                    const T v = in[at];                                                                            \
                    if (p->exclusive) {                                                                            \
                        out[at] = acc;                                                                             \
                    }                                                                                              \
                    acc = n == 0 && !p->exclusive ? v : (T)(p->product ? acc * v : acc + v);                       \
                    if (!p->exclusive) {                                                                           \
                        out[at] = acc;                                                                             \
                    }                                                                                              \
                }                                                                                                  \
            }                                                                                                      \
        }                                                                                                          \
    } while (0)

void mcu_cumsum(const mcu_cumsum_params *p, const void *x, void *y)
{
    int32_t o, i, n;
    switch (p->dtype) {
    case MCU_DT_FLOAT:
        MCU_CUMSUM_LOOP(float);
        break;
    case MCU_DT_DOUBLE:
        MCU_CUMSUM_LOOP(double);
        break;
    case MCU_DT_INT32:
    case MCU_DT_UINT32:
        MCU_CUMSUM_LOOP(uint32_t);
        break;
    default:
        MCU_CUMSUM_LOOP(uint64_t);
        break;
    }
}
