#ifndef MCU_BINARY_F32_H
#define MCU_BINARY_F32_H
#include <math.h>

#include "mcu_rt.h"

enum {
    MCU_BINARY_ADD = 0, MCU_BINARY_SUB = 1, MCU_BINARY_MUL = 2, MCU_BINARY_DIV = 3, MCU_BINARY_MAX = 4,
    MCU_BINARY_MIN = 5, MCU_BINARY_MOD = 6, MCU_BINARY_FMOD = 7
};

/* count output elements; bc.rank == 0 means both inputs have the output's shape (flat loop). */
typedef struct {
    int32_t op;
    int32_t count;
    mcu_bcast bc;
} mcu_binary_f32_params;

/** y = a op b with numpy broadcasting: + - * /, max/min (NaN propagates), Mod with the sign of b (MOD, numpy's
 *  np.mod) or of a (FMOD, C fmodf). */
void mcu_binary_f32(const mcu_binary_f32_params *p, const float *a, const float *b, float *y);

/* y[0 .. n-1] = OP(a, b) over one row, a and b stepping SA and SB elements (1, or 0 for an operand broadcast along
 * the row): four outputs per trip, their loads grouped ahead of the stores (an in-place y lies at or before a, see
 * mcucomp/ops/_overlap.py elementwise, so every read still comes before the write that may overwrite it), then the
 * tail one by one. OP(x, y) is one element's operation. */
#define MCU_BINARY_ROW(T, OP, SA, SB)                                                                              \
    do {                                                                                                           \
        int32_t i_ = 0;                                                                                            \
        for (; i_ + 4 <= n; i_ += 4, a += 4 * (SA), b += 4 * (SB), y += 4) {                                       \
            const T a0_ = a[0], b0_ = b[0], a1_ = a[SA], b1_ = b[SB];                                              \
            const T a2_ = a[2 * (SA)], b2_ = b[2 * (SB)], a3_ = a[3 * (SA)], b3_ = b[3 * (SB)];                    \
            y[0] = OP(a0_, b0_);                                                                                   \
            y[1] = OP(a1_, b1_);                                                                                   \
            y[2] = OP(a2_, b2_);                                                                                   \
            y[3] = OP(a3_, b3_);                                                                                   \
        }                                                                                                          \
        for (; i_ < n; ++i_, a += (SA), b += (SB), ++y) {                                                          \
            y[0] = OP(a[0], b[0]);                                                                                 \
        }                                                                                                          \
    } while (0)

/* One row for each stride pair a broadcast row can have: both contiguous, b or a broadcast along it. */
#define MCU_BINARY_ROWS(T, OP, SA, SB)                                                                             \
    do {                                                                                                           \
        if ((SA) == 1 && (SB) == 1) {                                                                              \
            MCU_BINARY_ROW(T, OP, 1, 1);                                                                           \
        } else if ((SA) == 1 && (SB) == 0) {                                                                       \
            MCU_BINARY_ROW(T, OP, 1, 0);                                                                           \
        } else {                                                                                                   \
            MCU_BINARY_ROW(T, OP, 0, 1);                                                                           \
        }                                                                                                          \
    } while (0)

/* The same element by element, a and b stepping sa and sb (any strides), for the ops and strides without an
 * unrolled row; leaves the switch case. */
#define MCU_BINARY_LOOP(OP)                                                                                        \
    for (i = 0; i < n; ++i, a += sa, b += sb) {                                                                    \
        y[i] = OP(a[0], b[0]);                                                                                     \
    }                                                                                                              \
    break

#define MCU_BINARY_OP_ADD(x, y) ((x) + (y))
#define MCU_BINARY_OP_SUB(x, y) ((x) - (y))
#define MCU_BINARY_OP_MUL(x, y) ((x) * (y))
#define MCU_BINARY_OP_DIV(x, y) ((x) / (y))
#define MCU_BINARY_OP_MAX(x, y) ((isnan(x) || (x) > (y)) ? (x) : (y))
#define MCU_BINARY_OP_MIN(x, y) ((isnan(x) || (x) < (y)) ? (x) : (y))

/* The kernel body for one floating type T, shared with binary_f64 (a separate kernel, so float32 models do not link
 * software double arithmetic). Each op is one IEEE operation with a single rounding (fmod is exact), so results
 * match onnxruntime bit for bit. Mod (numpy's np.mod): the remainder takes the sign of b; a zero result takes b's
 * sign, and b = +-inf keeps a finite a of b's sign and gives b otherwise. Max and Min propagate NaN like np.maximum
 * and np.minimum. FMOD and COPYSIGN are the <math.h> functions of T (both exact). UNROLL: 0 where T's arithmetic
 * is a library call (nothing to gain from the unrolled rows but their code size).
 * The output goes row by row (one flat row when both shapes equal the output's; else the broadcast walk's innermost
 * dim, where each operand steps 1 or 0): + - and * in an unrolled loop per stride pair (with UNROLL), the other ops
 * (and any other stride pair) in a loop per op. Every element is the same single operation either way. */
#define MCU_BINARY_FLOAT_KERNEL(NAME, T, FMOD, COPYSIGN, UNROLL)                                                   \
    static T NAME##_mod(T a, T b)                                                                                  \
    {                                                                                                              \
        const T r = FMOD(a, b);                                                                                    \
        if (r == 0) {                                                                                              \
            return COPYSIGN(0, b);                                                                                 \
        }                                                                                                          \
        return (r < 0) != (b < 0) ? r + b : r;                                                                     \
    }                                                                                                              \
                                                                                                                   \
    /* One row of n outputs, a and b stepping sa and sb elements. */                                               \
    static void NAME##_row(int32_t op, const T *a, int32_t sa, const T *b, int32_t sb, T *y, int32_t n)            \
    {                                                                                                              \
        int32_t i;                                                                                                 \
        const int32_t unrolled = UNROLL && (sa | sb) == 1; /* strides 0 or 1, not both 0 */                        \
        if (unrolled && op == MCU_BINARY_ADD) {                                                                    \
            MCU_BINARY_ROWS(T, MCU_BINARY_OP_ADD, sa, sb);                                                         \
        } else if (unrolled && op == MCU_BINARY_SUB) {                                                             \
            MCU_BINARY_ROWS(T, MCU_BINARY_OP_SUB, sa, sb);                                                         \
        } else if (unrolled && op == MCU_BINARY_MUL) {                                                             \
            MCU_BINARY_ROWS(T, MCU_BINARY_OP_MUL, sa, sb);                                                         \
        } else {                                                                                                   \
            switch (op) {                                                                                          \
            case MCU_BINARY_ADD:                                                                                   \
                MCU_BINARY_LOOP(MCU_BINARY_OP_ADD);                                                                \
            case MCU_BINARY_SUB:                                                                                   \
                MCU_BINARY_LOOP(MCU_BINARY_OP_SUB);                                                                \
            case MCU_BINARY_MUL:                                                                                   \
                MCU_BINARY_LOOP(MCU_BINARY_OP_MUL);                                                                \
            case MCU_BINARY_DIV:                                                                                   \
                MCU_BINARY_LOOP(MCU_BINARY_OP_DIV);                                                                \
            case MCU_BINARY_MAX:                                                                                   \
                MCU_BINARY_LOOP(MCU_BINARY_OP_MAX);                                                                \
            case MCU_BINARY_MIN:                                                                                   \
                MCU_BINARY_LOOP(MCU_BINARY_OP_MIN);                                                                \
            case MCU_BINARY_MOD:                                                                                   \
                MCU_BINARY_LOOP(NAME##_mod);                                                                       \
            default:                                                                                               \
                MCU_BINARY_LOOP(FMOD);                                                                             \
            }                                                                                                      \
        }                                                                                                          \
    }                                                                                                              \
                                                                                                                   \
    void NAME(const NAME##_params *p, const T *a, const T *b, T *y)                                                \
    {                                                                                                              \
        if (p->bc.rank == 0) {                                                                                     \
            NAME##_row(p->op, a, 1, b, 1, y, p->count);                                                            \
        } else {                                                                                                   \
            const int32_t last = p->bc.rank - 1, n = p->bc.dims[last];                                             \
            int32_t idx[MCU_MAX_RANK] = {0};                                                                       \
            int32_t ia = 0, ib = 0, done;                                                                          \
            mcu_bcast outer = p->bc; /* the walk without its innermost dim: one step per row */                    \
            outer.rank = last;                                                                                     \
            for (done = 0; done < p->count; done += n, y += n) {                                                   \
                NAME##_row(p->op, a + ia, p->bc.a_strides[last], b + ib, p->bc.b_strides[last], y, n);             \
                mcu_bcast_next(&outer, idx, &ia, &ib);                                                             \
            }                                                                                                      \
        }                                                                                                          \
    }

#endif
