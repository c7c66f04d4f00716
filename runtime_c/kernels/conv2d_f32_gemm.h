#ifndef MCU_CONV2D_F32_GEMM_H
#define MCU_CONV2D_F32_GEMM_H
#include "conv2d_f32.h"

/* The register-blocked micro-kernel of conv2d_f32's GEMM paths (pointwise, im2col): a block of MCU_F32_BLOCK_OC
 * output channels by MCU_F32_BLOCK_PX output pixels, 16 accumulators, from two operands laid out in the order the
 * loop reads them, MCU_F32_BLOCK_OC (resp. _PX) floats per tap:
 *   weights  w[block][t][i] = W[block * 4 + i][t]  (packed at compile time; zeros past c_out),
 *   columns  col[t][j] = the input tap t of the block's pixel j  (gathered at run time; zeros for padding taps),
 *            or, for a block whose four pixels' windows lie inside the input side by side (stride 1 across), read in
 *            place: tap t of the block's pixel j at col[taps[t] + j], col then the first pixel's window start
 *            (taps: the window's offsets, conv2d_f32.h).
 * Each output accumulates from 0.0 over its taps t = 0 .. k-1 in order with MCU_F32_MAC, then adds its bias: the
 * general path's order (input channel, kernel row, column; padding taps as +0 products, which leave the sum
 * unchanged: an accumulator started at +0.0 is never -0.0). The block over outputs leaves each output's order alone,
 * so host and target compute the same bits. */

#define MCU_F32_BLOCK_OC 4
#define MCU_F32_BLOCK_PX 4

/* in_place of a block read in place a kernel row at a time: rows of three taps side by side (k_w 3, dil_w 1), the
 * row's first offset from the taps table */
#define MCU_F32_IN_PLACE_ROWS 2

/* One output: plus its bias, clamped to [lo, hi]; the same where hi is +inf (FLOOR) or both bounds infinite (PLAIN). */
#define MCU_F32_OUT(acc, b, lo, hi) mcu_conv2d_f32_clamp((acc) + (b), (lo), (hi))
#define MCU_F32_OUT_FLOOR(acc, b, lo, hi) mcu_conv2d_f32_floor((acc) + (b), (lo))
#define MCU_F32_OUT_PLAIN(acc, b, lo, hi) ((acc) + (b))

/* A full block's 16 outputs through OUT (the locals of mcu_conv2d_f32_block). */
#define MCU_F32_STORE_BLOCK(OUT)                                                                                     \
    do {                                                                                                             \
        y[0] = OUT(a00, b0, lo, hi);                                                                                 \
        y[1] = OUT(a01, b0, lo, hi);                                                                                 \
        y[2] = OUT(a02, b0, lo, hi);                                                                                 \
        y[3] = OUT(a03, b0, lo, hi);                                                                                 \
        y1[0] = OUT(a10, b1, lo, hi);                                                                                \
        y1[1] = OUT(a11, b1, lo, hi);                                                                                \
        y1[2] = OUT(a12, b1, lo, hi);                                                                                \
        y1[3] = OUT(a13, b1, lo, hi);                                                                                \
        y2[0] = OUT(a20, b2, lo, hi);                                                                                \
        y2[1] = OUT(a21, b2, lo, hi);                                                                                \
        y2[2] = OUT(a22, b2, lo, hi);                                                                                \
        y2[3] = OUT(a23, b2, lo, hi);                                                                                \
        y3[0] = OUT(a30, b3, lo, hi);                                                                                \
        y3[1] = OUT(a31, b3, lo, hi);                                                                                \
        y3[2] = OUT(a32, b3, lo, hi);                                                                                \
        y3[3] = OUT(a33, b3, lo, hi);                                                                                \
    } while (0)

static MCU_INLINE float mcu_conv2d_f32_clamp(float v, float lo, float hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

static MCU_INLINE float mcu_conv2d_f32_floor(float v, float lo)
{
    return v < lo ? lo : v;
}

/* Between taps: GCC's scheduler would otherwise hoist the next taps' loads above this tap's arithmetic, past the 32
 * S registers (16 accumulators, 8 operands, products), and spill; the empty statement keeps each tap's loads in it. */
#if defined(__GNUC__)
#define MCU_F32_TAP_FENCE() __asm__ volatile("" ::: "memory")
#else
#define MCU_F32_TAP_FENCE() ((void)0)
#endif

/* Where the four inputs of tap t of the turn start: in place at col + taps[t] when the block reads its windows in
 * place (in_place: a constant at each call site, so each inlined copy keeps one form), else the gathered columns. */
#define MCU_F32_TAP_X(t) (in_place ? col + taps[t] : col + 4 * (t))

/* Tap t of the turn, its four inputs at x: 16 multiply-accumulates of the block's accumulators (mcu_conv2d_f32_block's
 * locals). */
#define MCU_F32_TAP_AT(x, t)                                                                                         \
    do {                                                                                                             \
        const float *xt = (x);                                                                                       \
        const float w0 = w[4 * (t)], w1 = w[4 * (t) + 1], w2 = w[4 * (t) + 2], w3 = w[4 * (t) + 3];                  \
        const float x0 = xt[0], x1 = xt[1], x2 = xt[2], x3 = xt[3];                                                  \
        a00 = MCU_F32_MAC(a00, w0, x0);                                                                              \
        a01 = MCU_F32_MAC(a01, w0, x1);                                                                              \
        a02 = MCU_F32_MAC(a02, w0, x2);                                                                              \
        a03 = MCU_F32_MAC(a03, w0, x3);                                                                              \
        a10 = MCU_F32_MAC(a10, w1, x0);                                                                              \
        a11 = MCU_F32_MAC(a11, w1, x1);                                                                              \
        a12 = MCU_F32_MAC(a12, w1, x2);                                                                              \
        a13 = MCU_F32_MAC(a13, w1, x3);                                                                              \
        a20 = MCU_F32_MAC(a20, w2, x0);                                                                              \
        a21 = MCU_F32_MAC(a21, w2, x1);                                                                              \
        a22 = MCU_F32_MAC(a22, w2, x2);                                                                              \
        a23 = MCU_F32_MAC(a23, w2, x3);                                                                              \
        a30 = MCU_F32_MAC(a30, w3, x0);                                                                              \
        a31 = MCU_F32_MAC(a31, w3, x1);                                                                              \
        a32 = MCU_F32_MAC(a32, w3, x2);                                                                              \
        a33 = MCU_F32_MAC(a33, w3, x3);                                                                              \
        MCU_F32_TAP_FENCE();                                                                                         \
    } while (0)

/* Tap t of the turn, its inputs where MCU_F32_TAP_X says. */
#define MCU_F32_TAP(t) MCU_F32_TAP_AT(MCU_F32_TAP_X(t), t)

/* Outputs y[i * plane + j] (i < n_oc output channels, j < n_px pixels) of the block whose k-tap packed weights start
 * at w and whose columns start at col (in_place 0), or whose windows start at col in place (in_place 1, or
 * MCU_F32_IN_PLACE_ROWS a kernel row at a time; taps: their offsets); bias: the block's 4 biases. */
static MCU_INLINE void mcu_conv2d_f32_block(const float *w, const float *col, int in_place, const int32_t *taps,
                                             int32_t k,
                                             const float *bias, float lo, float hi, float *y, size_t plane,
                                             int32_t n_oc, int32_t n_px)
{
    float a00 = 0.0f, a01 = 0.0f, a02 = 0.0f, a03 = 0.0f, a10 = 0.0f, a11 = 0.0f, a12 = 0.0f, a13 = 0.0f;
    float a20 = 0.0f, a21 = 0.0f, a22 = 0.0f, a23 = 0.0f, a30 = 0.0f, a31 = 0.0f, a32 = 0.0f, a33 = 0.0f;
    const float *w_end = w + (size_t)k * MCU_F32_BLOCK_OC;
    const float *w_quads = w + (size_t)(k & ~3) * MCU_F32_BLOCK_OC;
    if (in_place == MCU_F32_IN_PLACE_ROWS) {
        /* a kernel row's three taps side by side a turn: one offset read and add per row */
        while (w != w_end) {
            const float *x_row = col + taps[0];
            MCU_F32_TAP_AT(x_row, 0);
            MCU_F32_TAP_AT(x_row + 1, 1);
            MCU_F32_TAP_AT(x_row + 2, 2);
            w += 3 * MCU_F32_BLOCK_OC;
            taps += 3;
        }
    } else {
        /* four taps a turn (the loop's own instructions once per 64 MACs), then single taps */
        while (w != w_quads) {
            MCU_F32_TAP(0);
            MCU_F32_TAP(1);
            MCU_F32_TAP(2);
            MCU_F32_TAP(3);
            w += 4 * MCU_F32_BLOCK_OC;
            if (in_place) {
                taps += 4;
            } else {
                col += 4 * MCU_F32_BLOCK_PX;
            }
        }
        while (w != w_end) {
            MCU_F32_TAP(0);
            w += MCU_F32_BLOCK_OC;
            if (in_place) {
                taps += 1;
            } else {
                col += MCU_F32_BLOCK_PX;
            }
        }
    }
    if (n_oc == MCU_F32_BLOCK_OC && n_px == MCU_F32_BLOCK_PX) {
        /* the biases in registers: y may alias them for all the compiler knows */
        const float b0 = bias[0], b1 = bias[1], b2 = bias[2], b3 = bias[3];
        float *y1 = y + plane, *y2 = y1 + plane, *y3 = y2 + plane;
        /* the bounds a fused Relu (or none) leaves infinite are not tested: the same values, fewer instructions */
        if (hi == INFINITY && lo == -INFINITY) {
            MCU_F32_STORE_BLOCK(MCU_F32_OUT_PLAIN);
        } else if (hi == INFINITY) {
            MCU_F32_STORE_BLOCK(MCU_F32_OUT_FLOOR);
        } else {
            MCU_F32_STORE_BLOCK(MCU_F32_OUT);
        }
    } else {
        /* a tail block: the outputs past c_out or past the last pixel are computed and dropped */
        const float acc[16] = {a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23, a30, a31, a32, a33};
        int32_t i, j;
        for (i = 0; i < n_oc; ++i) {
            for (j = 0; j < n_px; ++j) {
                y[(size_t)i * plane + j] = MCU_F32_OUT(acc[i * MCU_F32_BLOCK_PX + j], bias[i], lo, hi);
            }
        }
    }
}

/* On the functions that inline the micro-kernel: GCC's first scheduling pass would hoist a tap's products above its
 * additions, past the 32 S registers, and spill (a store and a reload a turn and a register move: simulated on the
 * M4, 3x3 16->16 at 32x32 3.65 -> 3.59 cycles/MAC with it off); the tap fence keeps the loads in their tap. Loops
 * start on a word: a turn's branch back to a 32-bit instruction half a word off costs a fetch more (simulated on the
 * M4, ResNet-8 3.003 -> 2.995 cycles/MAC). */
#if defined(__GNUC__) && !defined(__clang__)
#define MCU_F32_GEMM_SCHED __attribute__((optimize("no-schedule-insns", "align-loops=4")))
#else
#define MCU_F32_GEMM_SCHED
#endif

/* The blocks of one column block: every output channel of the n_px pixels whose outputs start at y (y[oc * plane]),
 * from gathered columns (in_place 0) or windows read in place at col (in_place 1 or MCU_F32_IN_PLACE_ROWS, through
 * p->taps). */
static MCU_INLINE void mcu_conv2d_f32_columns(const mcu_conv2d_f32_params *p, const float *col, int in_place,
                                               int32_t k, float *y, size_t plane, int32_t n_px)
{
    const int32_t c_out = p->g.c_out;
    int32_t oc;
    for (oc = 0; oc < c_out; oc += MCU_F32_BLOCK_OC) {
        const int32_t n_oc = c_out - oc < MCU_F32_BLOCK_OC ? c_out - oc : MCU_F32_BLOCK_OC;
        mcu_conv2d_f32_block(p->w + (size_t)oc * k, col, in_place, p->taps, k, p->bias + oc, p->act_min, p->act_max,
                             y + (size_t)oc * plane, plane, n_oc, n_px);
    }
}

#endif
