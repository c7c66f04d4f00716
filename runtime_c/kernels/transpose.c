#include "transpose.h"

/** Copy one element; fixed sizes let the compiler use single loads and stores. */
static void mcu_transpose_elem(uint8_t *dst, const uint8_t *src, size_t es)
{
    switch (es) {
    case 1:
        *dst = *src;
        break;
    case 2:
        memcpy(dst, src, 2);
        break;
    case 4:
        memcpy(dst, src, 4);
        break;
    case 8:
        memcpy(dst, src, 8);
        break;
    default:
        memcpy(dst, src, es);
        break;
    }
}

/* One output row of `n` bytes read `step` elements apart. */
static void mcu_transpose_row_u8(uint8_t *out, const uint8_t *in, int32_t step, int32_t n)
{
    int32_t j;
    for (j = 0; j < n; ++j, in += step) {
        out[j] = *in;
    }
}

/* The word loop keeps its own registers (inlined into mcu_transpose, GCC spills its pointers and counter). */
#if defined(__GNUC__)
#define MCU_TRANSPOSE_OUTLINE __attribute__((noinline))
#else
#define MCU_TRANSPOSE_OUTLINE
#endif

/* The word at p, 4-byte aligned (one LDR, also where unaligned loads fault: ARMv6-M). */
static inline uint32_t mcu_transpose_load_word(const uint8_t *p)
{
    uint32_t w;
#if defined(__GNUC__)
    memcpy(&w, __builtin_assume_aligned(p, 4), 4);
#else
    memcpy(&w, p, 4);
#endif
    return w;
}

/* Store w at p, 4-byte aligned (one STR). */
static inline void mcu_transpose_store_word(uint8_t *p, uint32_t w)
{
#if defined(__GNUC__)
    memcpy(__builtin_assume_aligned(p, 4), &w, 4);
#else
    memcpy(p, &w, 4);
#endif
}

/* Interleave three planes `s1` bytes apart (in, s1 and out 4-byte aligned) into `quads` x 4 pixels of 3 bytes: one
 * word of each plane (a, b, c: bytes of pixels 0..3, little-endian) gives three output words
 * a0 b0 c0 a1 | b1 c1 a2 b2 | c2 a3 b3 c3. */
static MCU_TRANSPOSE_OUTLINE void mcu_transpose_rgb_words(uint8_t *out, const uint8_t *in, int32_t s1, int32_t quads)
{
    const uint8_t *const end = in + 4 * (size_t)quads, *in1 = in + s1, *in2 = in + 2 * (size_t)s1;
    for (; in != end; in += 4, in1 += 4, in2 += 4, out += 12) {
        const uint32_t a = mcu_transpose_load_word(in), b = mcu_transpose_load_word(in1),
                       c = mcu_transpose_load_word(in2);
#if defined(__ARM_FEATURE_DSP) && defined(__GNUC__)
        /* the C below in 18 instructions: UXTB16 (with its rotation) makes the byte pairs, BFI, UBFX and PKHTB the
         * words (GCC finds neither the rotation nor the halfword packing) */
        uint32_t even, odd, t, w0, w1, w2;
        __asm__("uxtb16 %[e], %[a]\n\t"
                "uxtb16 %[t], %[b]\n\t"
                "orr %[e], %[e], %[t], lsl #8\n\t"
                "uxtb16 %[o], %[a], ror #8\n\t"
                "uxtb16 %[t], %[b], ror #8\n\t"
                "orr %[o], %[o], %[t], lsl #8\n\t"
                "mov %[w0], %[e]\n\t"
                "bfi %[w0], %[c], #16, #8\n\t"
                "bfi %[w0], %[o], #24, #8\n\t"
                "ubfx %[w1], %[o], #8, #8\n\t"
                "and %[t], %[c], #0xFF00\n\t"
                "orr %[w1], %[w1], %[t]\n\t"
                "pkhtb %[w1], %[e], %[w1]\n\t"
                "and %[w2], %[c], #0xFF000000\n\t"
                "lsr %[t], %[o], #16\n\t"
                "orr %[w2], %[w2], %[t], lsl #8\n\t"
                "ubfx %[t], %[c], #16, #8\n\t"
                "orr %[w2], %[w2], %[t]"
                : [e] "=&r"(even), [o] "=&r"(odd), [t] "=&r"(t), [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2)
                : [a] "r"(a), [b] "r"(b), [c] "r"(c));
        mcu_transpose_store_word(out, w0);
        mcu_transpose_store_word(out + 4, w1);
        mcu_transpose_store_word(out + 8, w2);
#else
        /* the even pixels' a, b bytes a0 b0 a2 b2 and the odd ones' a1 b1 a3 b3, two masks each */
        const uint32_t even = (a & 0x00FF00FFu) | (b & 0x00FF00FFu) << 8;
        const uint32_t odd = (a >> 8 & 0x00FF00FFu) | (b >> 8 & 0x00FF00FFu) << 8;
        mcu_transpose_store_word(out, (even & 0xFFFFu) | (c & 0xFFu) << 16 | odd << 24);
        mcu_transpose_store_word(out + 4, (odd >> 8 & 0xFFu) | (c & 0xFF00u) | (even & 0xFFFF0000u));
        mcu_transpose_store_word(out + 8, (c >> 16 & 0xFFu) | (odd >> 16) << 8 | (c & 0xFF000000u));
#endif
    }
}

/* One output row of `n` 4-byte elements read `step` elements apart (in and out 4-byte aligned), four per trip with
 * the loads ahead of the stores: one LDR and one STR per element. */
static void mcu_transpose_row_u32(uint8_t *out, const uint8_t *in, int32_t step, int32_t n)
{
    const ptrdiff_t s = (ptrdiff_t)step * 4;
    int32_t j = 0;
    for (; j + 4 <= n; j += 4, in += 4 * s, out += 16) {
        const uint32_t w0 = mcu_transpose_load_word(in), w1 = mcu_transpose_load_word(in + s),
                       w2 = mcu_transpose_load_word(in + 2 * s), w3 = mcu_transpose_load_word(in + 3 * s);
        mcu_transpose_store_word(out, w0);
        mcu_transpose_store_word(out + 4, w1);
        mcu_transpose_store_word(out + 8, w2);
        mcu_transpose_store_word(out + 12, w3);
    }
    for (; j < n; ++j, in += s, out += 4) {
        mcu_transpose_store_word(out, mcu_transpose_load_word(in));
    }
}

/* A 2-D walk of bytes (a layout conversion NCHW <-> NHWC at a model's inputs and outputs): `rows` output rows of
 * `cols` bytes, the input `s0` bytes apart from row to row and `s1` within one; 3 columns (RGB pixels) unrolled,
 * four pixels per three words where the planes are contiguous and word-aligned (NCHW -> NHWC). */
static void mcu_transpose_2d_u8(uint8_t *out, const uint8_t *in, int32_t rows, int32_t cols, int32_t s0, int32_t s1)
{
    int32_t r;
    if (cols == 3) {
        if (s0 == 1 && (s1 & 3) == 0 && (((uintptr_t)in | (uintptr_t)out) & 3u) == 0) {
            const int32_t quads = rows / 4;
            mcu_transpose_rgb_words(out, in, s1, quads);
            in += 4 * quads;
            out += 12 * quads;
            rows -= 4 * quads;
        }
        for (r = 0; r + 2 <= rows; r += 2, in += 2 * s0, out += 6) { /* two pixels: loads grouped, half the loop */
            const uint8_t p0 = in[0], p1 = in[s1], p2 = in[2 * s1], q0 = in[s0], q1 = in[s0 + s1],
                          q2 = in[s0 + 2 * s1];
            out[0] = p0;
            out[1] = p1;
            out[2] = p2;
            out[3] = q0;
            out[4] = q1;
            out[5] = q2;
        }
        if (r < rows) {
            out[0] = in[0];
            out[1] = in[s1];
            out[2] = in[2 * s1];
        }
        return;
    }
    for (r = 0; r < rows; ++r, in += s0, out += cols) {
        mcu_transpose_row_u8(out, in, s1, cols);
    }
}

void mcu_transpose(const mcu_transpose_params *p, const void *x, void *y)
{
    const uint8_t *in = (const uint8_t *)x;
    uint8_t *out = (uint8_t *)y;
    const size_t es = (size_t)p->elem_bytes;
    const int32_t last = p->rank - 1;
    const int32_t row = p->dims[last], step = p->strides[last];
    int32_t idx[MCU_TRANSPOSE_MAX_DIMS] = {0};
    const int32_t words = es == 4 && (((uintptr_t)in | (uintptr_t)out) & 3u) == 0;
    int32_t src = p->offset, done, j, d;
    if (es == 1 && p->rank == 2 && step != 1) {
        mcu_transpose_2d_u8(out, in + src, p->dims[0], row, p->strides[0], step);
        return;
    }
    for (done = 0; done < p->count; done += row) {
        if (step == 1) {
            /* the innermost dim is contiguous in the input too: one block copy per row */
            memcpy(out, in + (size_t)src * es, (size_t)row * es);
            out += (size_t)row * es;
        } else if (es == 1) {
            mcu_transpose_row_u8(out, in + src, step, row);
            out += row;
        } else if (words) {
            mcu_transpose_row_u32(out, in + (size_t)src * 4, step, row);
            out += (size_t)row * 4;
        } else {
            for (j = 0; j < row; ++j) {
                mcu_transpose_elem(out, in + (size_t)(src + j * step) * es, es);
                out += es;
            }
        }
        for (d = last - 1; d >= 0; --d) {
            src += p->strides[d];
            if (++idx[d] < p->dims[d]) {
                break;
            }
            src -= p->strides[d] * p->dims[d];
            idx[d] = 0;
        }
    }
}
