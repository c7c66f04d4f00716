#include "matvec_f32.h"
#include <math.h>

#if defined(__ARM_FP) && defined(__thumb2__)
/* On a core with an FPU, GCC's schedule of the C loops leaves weight loads apart from the load runs (2 cycles each
 * instead of 1 on the Cortex-M4) and tests the loop every 16 MACs: 3.7 cycles per MAC on the Cortex-M4 in the
 * separate form, 2.2 on the Cortex-M7 in the fused form (its VLDRs do not pair with the VFMAs). These loops take a
 * whole row block: its accumulators from init, 8 columns of x per turn in one VLDM and the weights 16 at a time in
 * VLDMs (1 + 16 cycles on the M4, 8 on the M7), each column applied to every accumulator in column order (the C
 * loops' arithmetic), then the last columns one a turn, and the accumulators stored to y. Separate: each VMUL into
 * its weight register, then each VADD onto its accumulator (3.25 cycles per MAC on the M4). Fused: VFMA onto the
 * accumulator, 8 (or 4) independent accumulators a column for the M7's 3 cycles of accumulator latency (1.8 cycles
 * per MAC on the M7, as each VLDM waits 3 cycles after a VFMA). */
#define MCU_MATVEC_F32_ASM 1

#if MCU_F32_FUSED
#define MCU_MV_FMA(a, w, x) "vfma.f32 s" #a ", s" #w ", s" #x "\n"
/* Accumulators s[a0] .. s[a3] plus the weights s[w] .. s[w + 3] times s[x], fused. */
#define MCU_MV_FMA4(a0, a1, a2, a3, w0, w1, w2, w3, x)                                                            \
    MCU_MV_FMA(a0, w0, x) MCU_MV_FMA(a1, w1, x) MCU_MV_FMA(a2, w2, x) MCU_MV_FMA(a3, w3, x)
/* 8 rows, two columns (x in s[xa], s[xb]) of the weights in s16-s31, onto the accumulators s0-s7. */
#define MCU_MV_COLUMNS8(xa, xb)                                                                                    \
    MCU_MV_FMA4(0, 1, 2, 3, 16, 17, 18, 19, xa) MCU_MV_FMA4(4, 5, 6, 7, 20, 21, 22, 23, xa)                        \
    MCU_MV_FMA4(0, 1, 2, 3, 24, 25, 26, 27, xb) MCU_MV_FMA4(4, 5, 6, 7, 28, 29, 30, 31, xb)
/* 4 rows, four columns (x in s[x0] .. s[x3]) of the weights in s16-s31, onto the accumulators s0-s3. */
#define MCU_MV_COLUMNS4(x0, x1, x2, x3)                                                                            \
    MCU_MV_FMA4(0, 1, 2, 3, 16, 17, 18, 19, x0) MCU_MV_FMA4(0, 1, 2, 3, 20, 21, 22, 23, x1)                        \
    MCU_MV_FMA4(0, 1, 2, 3, 24, 25, 26, 27, x2) MCU_MV_FMA4(0, 1, 2, 3, 28, 29, 30, 31, x3)
/* 8 (4) rows, one column (x in s[x]) of the weights in s16-s23 (s16-s19), onto the accumulators s0-s7 (s0-s3). */
#define MCU_MV_COLUMN8(x) MCU_MV_FMA4(0, 1, 2, 3, 16, 17, 18, 19, x) MCU_MV_FMA4(4, 5, 6, 7, 20, 21, 22, 23, x)
#define MCU_MV_COLUMN4(x) MCU_MV_FMA4(0, 1, 2, 3, 16, 17, 18, 19, x)
#else
#define MCU_MV_MUL(w, x) "vmul.f32 s" #w ", s" #w ", s" #x "\n"
#define MCU_MV_ADD(a, w) "vadd.f32 s" #a ", s" #a ", s" #w "\n"
/* Weights s[w] .. s[w + 3] times s[x]; accumulators s[a] .. s[a + 3] plus s[w] .. s[w + 3]. */
#define MCU_MV_MUL4(w0, w1, w2, w3, x) MCU_MV_MUL(w0, x) MCU_MV_MUL(w1, x) MCU_MV_MUL(w2, x) MCU_MV_MUL(w3, x)
#define MCU_MV_ADD4(a0, a1, a2, a3, w0, w1, w2, w3)                                                               \
    MCU_MV_ADD(a0, w0) MCU_MV_ADD(a1, w1) MCU_MV_ADD(a2, w2) MCU_MV_ADD(a3, w3)
/* 8 rows, two columns (x in s[xa], s[xb]) of the weights in s16-s31, onto the accumulators s0-s7. */
#define MCU_MV_COLUMNS8(xa, xb)                                                                                        \
    MCU_MV_MUL4(16, 17, 18, 19, xa) MCU_MV_MUL4(20, 21, 22, 23, xa) MCU_MV_MUL4(24, 25, 26, 27, xb)                   \
    MCU_MV_MUL4(28, 29, 30, 31, xb) MCU_MV_ADD4(0, 1, 2, 3, 16, 17, 18, 19) MCU_MV_ADD4(4, 5, 6, 7, 20, 21, 22, 23)   \
    MCU_MV_ADD4(0, 1, 2, 3, 24, 25, 26, 27) MCU_MV_ADD4(4, 5, 6, 7, 28, 29, 30, 31)
/* 4 rows, four columns (x in s[x0] .. s[x3]) of the weights in s16-s31, onto the accumulators s0-s3. */
#define MCU_MV_COLUMNS4(x0, x1, x2, x3)                                                                                \
    MCU_MV_MUL4(16, 17, 18, 19, x0) MCU_MV_MUL4(20, 21, 22, 23, x1) MCU_MV_MUL4(24, 25, 26, 27, x2)                   \
    MCU_MV_MUL4(28, 29, 30, 31, x3) MCU_MV_ADD4(0, 1, 2, 3, 16, 17, 18, 19) MCU_MV_ADD4(0, 1, 2, 3, 20, 21, 22, 23)   \
    MCU_MV_ADD4(0, 1, 2, 3, 24, 25, 26, 27) MCU_MV_ADD4(0, 1, 2, 3, 28, 29, 30, 31)
/* 8 (4) rows, one column (x in s[x]) of the weights in s16-s23 (s16-s19), onto the accumulators s0-s7 (s0-s3). */
#define MCU_MV_COLUMN8(x)                                                                                              \
    MCU_MV_MUL4(16, 17, 18, 19, x) MCU_MV_MUL4(20, 21, 22, 23, x) MCU_MV_ADD4(0, 1, 2, 3, 16, 17, 18, 19)             \
    MCU_MV_ADD4(4, 5, 6, 7, 20, 21, 22, 23)
#define MCU_MV_COLUMN4(x) MCU_MV_MUL4(16, 17, 18, 19, x) MCU_MV_ADD4(0, 1, 2, 3, 16, 17, 18, 19)
#endif
#define MCU_MV_CLOBBERS                                                                                           \
    "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15", "s16", "s17",\
        "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30", "s31", "cc", "memory"

/* The accumulators of a block without init. */
static const float mcu_matvec_f32_zeros[MCU_MATVEC_F32_BLOCK] = {0.0f};

/* A block of rows over all columns: its accumulators (register list accs) from init, the 8-column turns `turn` (x in
 * s8-s15), then one column a turn (x in s8, its weights in the register list tail_w, `column`), stored to y. */
#define MCU_MV_ROWS(accs, turn, tail_w, column)                                                                    \
    int32_t turns = cols / 8, rest = cols % 8;                                                                    \
    __asm__ volatile("vldmia %[init], {" accs "}\n"                                                               \
                     "cmp %[n], #0\n"                                                                              \
                     "beq 2f\n"                                                                                    \
                     "1:\n"                                                                                        \
                     "vldmia %[x]!, {s8-s15}\n" turn "subs %[n], %[n], #1\n"                                       \
                     "bne 1b\n"                                                                                    \
                     "2:\n"                                                                                        \
                     "cmp %[r], #0\n"                                                                              \
                     "beq 4f\n"                                                                                    \
                     "3:\n"                                                                                        \
                     "vldmia %[x]!, {s8}\n"                                                                        \
                     "vldmia %[w]!, {" tail_w "}\n" column "subs %[r], %[r], #1\n"                                 \
                     "bne 3b\n"                                                                                    \
                     "4:\n"                                                                                        \
                     "vstmia %[y], {" accs "}\n"                                                                   \
                     : [w] "+r"(w), [x] "+r"(x), [n] "+r"(turns), [r] "+r"(rest)                                   \
                     : [init] "r"(init), [y] "r"(y)                                                                \
                     : MCU_MV_CLOBBERS)

/* 8 rows over all columns: accumulators s0-s7, 16 weights (two columns) per VLDM. */
static void mcu_matvec_f32_rows8(const float *w, const float *x, int32_t cols, const float *init, float *y)
{
    MCU_MV_ROWS("s0-s7",
                "vldmia %[w]!, {s16-s31}\n" MCU_MV_COLUMNS8(8, 9) "vldmia %[w]!, {s16-s31}\n" MCU_MV_COLUMNS8(10, 11)
                "vldmia %[w]!, {s16-s31}\n" MCU_MV_COLUMNS8(12, 13) "vldmia %[w]!, {s16-s31}\n" MCU_MV_COLUMNS8(14, 15),
                "s16-s23", MCU_MV_COLUMN8(8));
}

/* 4 rows over all columns: accumulators s0-s3, 16 weights (four columns) per VLDM. */
static void mcu_matvec_f32_rows4(const float *w, const float *x, int32_t cols, const float *init, float *y)
{
    MCU_MV_ROWS("s0-s3",
                "vldmia %[w]!, {s16-s31}\n" MCU_MV_COLUMNS4(8, 9, 10, 11) "vldmia %[w]!, {s16-s31}\n"
                MCU_MV_COLUMNS4(12, 13, 14, 15),
                "s16-s19", MCU_MV_COLUMN4(8));
}
#endif

/* Eight rows at a time: x[k] is loaded once for the block's eight accumulators, whose weights are the next eight
 * floats of the packed stream (contiguous loads); then four rows likewise, then single rows. Register blocking over
 * rows leaves each row's order alone. */
void mcu_matvec_f32(const float *w, int32_t rows, int32_t cols, const float *x, const float *init, float *y)
{
    int32_t j = 0, k;
#ifdef MCU_MATVEC_F32_ASM
    for (; j + MCU_MATVEC_F32_BLOCK <= rows; j += MCU_MATVEC_F32_BLOCK) {
        mcu_matvec_f32_rows8(w, x, cols, init != NULL ? init + j : mcu_matvec_f32_zeros, y + j);
        w += (size_t)cols * MCU_MATVEC_F32_BLOCK;
    }
    if (rows - j >= MCU_MATVEC_F32_HALF) {
        mcu_matvec_f32_rows4(w, x, cols, init != NULL ? init + j : mcu_matvec_f32_zeros, y + j);
        w += (size_t)cols * MCU_MATVEC_F32_HALF;
        j += MCU_MATVEC_F32_HALF;
    }
#else
    for (; j + MCU_MATVEC_F32_BLOCK <= rows; j += MCU_MATVEC_F32_BLOCK) {
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, a4 = 0.0f, a5 = 0.0f, a6 = 0.0f, a7 = 0.0f;
        if (init != NULL) {
            MCU_MATVEC_F32_GET8(init + j, a);
        }
        for (k = 0; k + 2 <= cols; k += 2) { /* two columns a turn: one loop test per 16 MACs */
            MCU_MATVEC_F32_MAC8(a, w, x[k]);
            MCU_MATVEC_F32_MAC8(a, w + MCU_MATVEC_F32_BLOCK, x[k + 1]);
            w += 2 * MCU_MATVEC_F32_BLOCK;
        }
        if (k < cols) {
            MCU_MATVEC_F32_MAC8(a, w, x[k]);
            w += MCU_MATVEC_F32_BLOCK;
        }
        MCU_MATVEC_F32_PUT8(y + j, a);
    }
    if (rows - j >= MCU_MATVEC_F32_HALF) {
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        if (init != NULL) {
            MCU_MATVEC_F32_GET4(init + j, a);
        }
        for (k = 0; k < cols; ++k) {
            MCU_MATVEC_F32_MAC4(a, w, x[k]);
            w += MCU_MATVEC_F32_HALF;
        }
        MCU_MATVEC_F32_PUT4(y + j, a);
        j += MCU_MATVEC_F32_HALF;
    }
#endif
    for (; j < rows; ++j) {
        float acc = init != NULL ? init[j] : 0.0f;
        for (k = 0; k + 4 <= cols; k += 4) { /* four columns a turn: one loop test per 4 MACs */
            acc = MCU_F32_MAC(acc, w[k], x[k]);
            acc = MCU_F32_MAC(acc, w[k + 1], x[k + 1]);
            acc = MCU_F32_MAC(acc, w[k + 2], x[k + 2]);
            acc = MCU_F32_MAC(acc, w[k + 3], x[k + 3]);
        }
        for (; k < cols; ++k) {
            acc = MCU_F32_MAC(acc, w[k], x[k]);
        }
        y[j] = acc;
        w += cols;
    }
}
