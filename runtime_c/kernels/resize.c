#include "resize.h"

/* Output positions are walked in row-major order with a counter per axis; `row[a]` is the first table entry of the
 * current position along axis a. Weighted outputs sum their taps from zero in row-major tap order. */
void mcu_resize(const mcu_resize_params *p, const void *x, void *y)
{
    const uint8_t *xb = (const uint8_t *)x;
    uint8_t *yb = (uint8_t *)y;
    int32_t pos[MCU_MAX_RANK], row[MCU_MAX_RANK], tap[MCU_MAX_RANK];
    int32_t a, total = 1, q;
    for (a = 0; a < p->rank; ++a) {
        pos[a] = 0;
        row[a] = p->table[a];
        total *= p->out_dims[a];
    }
    for (q = 0; q < total; ++q) {
        int32_t outside = 0;
        for (a = 0; a < p->rank; ++a) {
            outside |= p->offsets[row[a]] < 0;
        }
        if (outside) {
            ((float *)y)[q] = p->extrapolation;
        } else if (p->weights == NULL && p->iweights == NULL) {
            int32_t off = 0;
            for (a = 0; a < p->rank; ++a) {
                off += p->offsets[row[a]];
            }
            memcpy(yb + (size_t)q * (size_t)p->elem_size, xb + (size_t)off * (size_t)p->elem_size,
                   (size_t)p->elem_size);
        } else if (p->iweights != NULL) {
            int32_t acc = 0;
            for (a = 0; a < p->rank; ++a) {
                tap[a] = 0;
            }
            for (;;) {
                int32_t off = 0, w = 1;
                for (a = 0; a < p->rank; ++a) {
                    off += p->offsets[row[a] + tap[a]];
                    w *= p->iweights[row[a] + tap[a]];
                }
                acc += w * ((p->is_signed ? (int32_t)((const int8_t *)x)[off] : (int32_t)xb[off]) - p->zero_point);
                for (a = p->rank - 1; a >= 0 && ++tap[a] == p->taps[a]; --a) {
                    tap[a] = 0;
                }
                if (a < 0) {
                    break;
                }
            }
            /* a convex combination of the zero-point-free codes, rounded half to even (as QuantizeLinear rounds the
             * float interpolation of the dequantized values), plus the zero point: a code */
            {
                const int32_t half = (int32_t)1 << p->shift >> 1;
                const int32_t fl = acc >> p->shift, rest = acc - fl * ((int32_t)1 << p->shift);
                const int32_t v = fl + (rest > half || (rest == half && half != 0 && (fl & 1) != 0)) + p->zero_point;
                if (p->is_signed) {
                    ((int8_t *)y)[q] = (int8_t)v;
                } else {
                    yb[q] = (uint8_t)v;
                }
            }
        } else {
            const float *xf = (const float *)x;
            float acc = 0.0f;
            for (a = 0; a < p->rank; ++a) {
                tap[a] = 0;
            }
            for (;;) {
                int32_t off = 0;
                float w = 1.0f;
                for (a = 0; a < p->rank; ++a) {
                    off += p->offsets[row[a] + tap[a]];
                    w *= p->weights[row[a] + tap[a]];
                }
                acc += w * xf[off];
                for (a = p->rank - 1; a >= 0 && ++tap[a] == p->taps[a]; --a) {
                    tap[a] = 0;
                }
                if (a < 0) {
                    break;
                }
            }
            ((float *)y)[q] = acc;
        }
        for (a = p->rank - 1; a >= 0; --a) {
            row[a] += p->taps[a];
            if (++pos[a] < p->out_dims[a]) {
                break;
            }
            pos[a] = 0;
            row[a] = p->table[a];
        }
    }
}
