#include "mlas_dot.h"
#include <math.h>

/* Within a K block one FMA chain from 0 (the kernel's zero-initialised accumulators), then one addition to C. */
float mcu_mlas_dot_fma(const float *w, const float *x, int32_t k, int32_t kblock, float c)
{
    int32_t k0, i;
    for (k0 = 0; k0 < k; k0 += kblock) {
        const int32_t k1 = k0 + kblock < k ? k0 + kblock : k;
        float acc = 0.0f;
        for (i = k0; i < k1; ++i) {
            acc = fmaf(w[i], x[i], acc);
        }
        c = acc + c;
    }
    return c;
}

/* Taps in groups of 4, then a pair, then one: each group's products summed in order, the sum added to C. */
float mcu_mlas_dot_m1(const float *w, const float *x, int32_t k, float c)
{
    int32_t i = 0;
    for (; i + 4 <= k; i += 4) {
        float t = w[i] * x[i];
        t = t + w[i + 1] * x[i + 1];
        t = t + w[i + 2] * x[i + 2];
        t = t + w[i + 3] * x[i + 3];
        c = t + c;
    }
    if (k - i >= 2) {
        const float t = w[i] * x[i] + w[i + 1] * x[i + 1];
        c = t + c;
        i += 2;
    }
    if (i < k) {
        c = w[i] * x[i] + c;
    }
    return c;
}

/* Lane j sums the products of taps i = j (mod 8) in order; the kernel reduces the lanes of 4 columns at a time,
 * then of a pair, then of the last single column, each with its own tree, and adds C. */
float mcu_mlas_dot_m1_transb(const float *w, const float *x, int32_t k, int32_t pos, int32_t count, float c)
{
    float l[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    int32_t i;
    for (i = 0; i < k; ++i) {
        l[i % 8] = l[i % 8] + w[i] * x[i];
    }
    if (pos < count - count % 4) {
        return ((((l[0] + l[1]) + l[2]) + l[3]) + (((l[4] + l[5]) + l[6]) + l[7])) + c;
    }
    if (pos < count - count % 2) {
        return (((l[0] + l[2]) + (l[4] + l[6])) + ((l[1] + l[3]) + (l[5] + l[7]))) + c;
    }
    return (((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))) + c;
}
