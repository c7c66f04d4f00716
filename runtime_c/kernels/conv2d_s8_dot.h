#ifndef MCU_CONV2D_S8_DOT_H
#define MCU_CONV2D_S8_DOT_H
#include "conv2d_s8.h"

/* The 2x2 block dot of the GEMM paths (conv2d_s8_pointwise.c, _im2col.c, _local.c, _direct.c, _few_channels.c):
 * DSP inline assembly, ARMv6-M naked functions, portable C. */

/* Channels-last. Every path computes acc = kbias[oc] + sum_k x'[k] * w[k] - w_zp[oc] * sum_k x'[k] over the whole
 * window, where x' is the input inside it and x_zp on the taps in the padding: kbias = bias - x_zp * sum_k
 * (w[k] - w_zp) is folded by the compiler, so this equals bias + sum over the taps inside of (x - x_zp)(w - w_zp),
 * the definition (mcucomp/intref/conv2d_s8.py). Integer sums are exact: the order of the terms is free, so the SIMD
 * loops below equal the portable ones bit for bit. */

/* The DSP GEMM's inline assembly takes all fourteen allocatable registers: GCC only finds them when optimizing
 * (unoptimized builds keep r7 for the frame), so those builds run the portable loops. */
#if defined(__ARM_FEATURE_DSP) && defined(__GNUC__) && defined(__OPTIMIZE__)
#define MCU_CONV2D_S8_DSP_ASM 1
#else
#define MCU_CONV2D_S8_DSP_ASM 0
#endif

#if MCU_CONV2D_S8_DSP_ASM

/* One 4-tap step of the 2x2 block at byte offset OFF of the four pointers (OFF0: the first step, which advances
 * them by 16 after the load): the three loads issue back to back (the core pipelines them), SXTB16 splits the two
 * column words into their even and odd lanes in place, each weight word is split in turn into `we` and in place. */
#define MCU_CONV2D_S8_STEP_LOADS(OFF)                                                                                 \
    "ldr %[x0o], [%[c0], #" #OFF "]\n\t"                                                                               \
    "ldr %[x1o], [%[c1], #" #OFF "]\n\t"                                                                               \
    "ldr %[wv], [%[w0], #" #OFF "]\n\t"
#define MCU_CONV2D_S8_STEP_LOADS0(INC)                                                                                \
    "ldr %[x0o], [%[c0]], #" #INC "\n\t"                                                                               \
    "ldr %[x1o], [%[c1]], #" #INC "\n\t"                                                                               \
    "ldr %[wv], [%[w0]], #" #INC "\n\t"

/* The column words split into even and odd lanes in place, then the first weight row's word ([wv]) against
 * both: the MACs of accumulators a00, a01. */
#define MCU_CONV2D_S8_MACS_ROW0                                                                                       \
    "sxtb16 %[x0e], %[x0o]\n\t"                                                                                       \
    "sxtb16 %[x0o], %[x0o], ror #8\n\t"                                                                               \
    "sxtb16 %[x1e], %[x1o]\n\t"                                                                                       \
    "sxtb16 %[x1o], %[x1o], ror #8\n\t"                                                                               \
    "sxtb16 %[we], %[wv]\n\t"                                                                                         \
    "smlad %[a00], %[x0e], %[we], %[a00]\n\t"                                                                         \
    "smlad %[a01], %[x1e], %[we], %[a01]\n\t"                                                                         \
    "sxtb16 %[wv], %[wv], ror #8\n\t"                                                                                 \
    "smlad %[a00], %[x0o], %[wv], %[a00]\n\t"                                                                         \
    "smlad %[a01], %[x1o], %[wv], %[a01]\n\t"

/* The second weight row's word (operand W, split in place) against both columns: a10, a11. */
#define MCU_CONV2D_S8_MACS_ROW1(W)                                                                                    \
    "sxtb16 %[we], " W "\n\t"                                                                                         \
    "smlad %[a10], %[x0e], %[we], %[a10]\n\t"                                                                         \
    "smlad %[a11], %[x1e], %[we], %[a11]\n\t"                                                                         \
    "sxtb16 " W ", " W ", ror #8\n\t"                                                                                 \
    "smlad %[a10], %[x0o], " W ", %[a10]\n\t"                                                                         \
    "smlad %[a11], %[x1o], " W ", %[a11]\n\t"

/* One step's MACs; W1: the address of the second weight row's word. */
#define MCU_CONV2D_S8_STEP_MACS(W1)                                                                                   \
    MCU_CONV2D_S8_MACS_ROW0 "ldr %[wv], " W1 "\n\t" MCU_CONV2D_S8_MACS_ROW1("%[wv]")

/* Four steps: 16 taps, the pointers advanced by 16. */
#define MCU_CONV2D_S8_SIXTEEN                                                                                         \
    MCU_CONV2D_S8_STEP_LOADS0(16)                                                                                     \
    MCU_CONV2D_S8_STEP_MACS("[%[w1]], #16")                                                                           \
    MCU_CONV2D_S8_STEP_LOADS(-12)                                                                                     \
    MCU_CONV2D_S8_STEP_MACS("[%[w1], #-12]")                                                                          \
    MCU_CONV2D_S8_STEP_LOADS(-8)                                                                                      \
    MCU_CONV2D_S8_STEP_MACS("[%[w1], #-8]")                                                                           \
    MCU_CONV2D_S8_STEP_LOADS(-4)                                                                                      \
    MCU_CONV2D_S8_STEP_MACS("[%[w1], #-4]")

/* One 4-tap step when the second column and weight row lie k bytes after the first ([kc] holds k): the four
 * loads issue back to back, the second weight word in [wt]; the pointers advance by 4. */
#define MCU_CONV2D_S8_STEPK                                                                                           \
    "ldr %[x1o], [%[c0], %[kc]]\n\t"                                                                                  \
    "ldr %[x0o], [%[c0]], #4\n\t"                                                                                     \
    "ldr %[wt], [%[w0], %[kc]]\n\t"                                                                                   \
    "ldr %[wv], [%[w0]], #4\n\t"                                                                                      \
    MCU_CONV2D_S8_MACS_ROW0 MCU_CONV2D_S8_MACS_ROW1("%[wt]")

/* The 2x2 block's 4-tap steps on DSP cores, in assembly because the compiler's schedule spills: the loop needs all
 * fourteen registers (4 accumulators, 4 column lane pairs, a weight word and its even lanes, 4 pointers), so the
 * loop end is compared from memory, once per 16 taps. Then single steps for k % 16 / 4 (none when k16 says k % 16
 * is 0); returns the taps done (from the start). */
static MCU_INLINE int32_t mcu_conv2d_s8_dot2x2_steps(const int8_t *w0, const int8_t *w1,
                                                              const int8_t *c0, const int8_t *c1, int32_t k,
                                                              int32_t k16, int32_t acc[4])
{
    int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3];
    int32_t x0e, x0o, x1e, x1o, wv, we;
    const int8_t *end = c0 + (k & ~15);
    if (k >= 16) {
        __asm__ volatile("1:\n\t" MCU_CONV2D_S8_SIXTEEN
                         "ldr %[we], %[end]\n\t"
                         "cmp %[c0], %[we]\n\t"
                         "bne 1b\n\t"
                         : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [c0] "+r"(c0),
                           [c1] "+r"(c1), [w0] "+r"(w0), [w1] "+r"(w1), [x0e] "=&r"(x0e), [x0o] "=&r"(x0o),
                           [x1e] "=&r"(x1e), [x1o] "=&r"(x1o), [wv] "=&r"(wv), [we] "=&r"(we)
                         : [end] "m"(end)
                         : "cc", "memory");
    }
    end = c0 + (k & 12);
    while (!k16 && c0 != end) {
        __asm__ volatile(MCU_CONV2D_S8_STEP_LOADS0(4) MCU_CONV2D_S8_STEP_MACS("[%[w1]], #4")
                         : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [c0] "+r"(c0),
                           [c1] "+r"(c1), [w0] "+r"(w0), [w1] "+r"(w1), [x0e] "=&r"(x0e), [x0o] "=&r"(x0o),
                           [x1e] "=&r"(x1e), [x1o] "=&r"(x1o), [wv] "=&r"(wv), [we] "=&r"(we)
                         :
                         : "memory");
    }
    acc[0] = a00;
    acc[1] = a01;
    acc[2] = a10;
    acc[3] = a11;
    return k & ~3;
}

/* The 2x2 block over `rows` runs of seg taps per column (seg % 16 == 0), run r of the columns at r * rs, the weight
 * rows contiguous (the direct path's windows inside the input): the 16-tap loop of mcu_conv2d_s8_dot2x2_steps, and
 * at each run's end the columns jump to the next run inside the same assembly (the run end and the runs left live
 * in memory, as every register is taken). */
static MCU_INLINE void mcu_conv2d_s8_dot2x2_rows16(const int8_t *w0, const int8_t *w1, const int8_t *c0,
                                                             const int8_t *c1, int32_t seg, int32_t rows, size_t rs,
                                                             int32_t acc[4])
{
    int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3];
    int32_t x0e, x0o, x1e, x1o, wv, we;
    const int8_t *end = c0 + seg;
    const int32_t jump = (int32_t)rs - seg, stride = (int32_t)rs;
    __asm__ volatile(MCU_CONV2D_S8_ALIGN "1:\n\t" MCU_CONV2D_S8_SIXTEEN
                     "ldr %[we], %[end]\n\t"
                     "cmp %[c0], %[we]\n\t"
                     "bne 1b\n\t"
                     "ldr %[wv], %[jump]\n\t"
                     "add %[c0], %[c0], %[wv]\n\t"
                     "add %[c1], %[c1], %[wv]\n\t"
                     "ldr %[wv], %[stride]\n\t"
                     "add %[we], %[we], %[wv]\n\t"
                     "str %[we], %[end]\n\t"
                     "ldr %[wv], %[rows]\n\t"
                     "subs %[wv], %[wv], #1\n\t"
                     "str %[wv], %[rows]\n\t"
                     "bne 1b\n\t"
                     : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [c0] "+r"(c0),
                       [c1] "+r"(c1), [w0] "+r"(w0), [w1] "+r"(w1), [x0e] "=&r"(x0e), [x0o] "=&r"(x0o),
                       [x1e] "=&r"(x1e), [x1o] "=&r"(x1o), [wv] "=&r"(wv), [we] "=&r"(we), [end] "+m"(end),
                       [rows] "+m"(rows)
                     : [jump] "m"(jump), [stride] "m"(stride)
                     : "cc", "memory");
    acc[0] = a00;
    acc[1] = a01;
    acc[2] = a10;
    acc[3] = a11;
}
#endif

#if !MCU_CONV2D_S8_DSP_ASM
#if defined(__GNUC__) && defined(__thumb__) && !defined(__thumb2__)
/* One tap i of the ARMv6-M 2x2 block: four LDRSB, one MOV, four MULS (each of the last three overwrites a value at
 * its last use) and four ADD to the accumulators in r8-r11: 17 cycles for four MACs on the two-stage pipeline.
 * r0 = w0 - 1, r1 = w1 - 1, r2 = c0 - 1, r3 = c1 - 1 (MCU_CONV2D_S8_V6M_DOT), r4 = i + 1, r5-r7 the values. */
#define MCU_CONV2D_S8_V6M_TAP                                                                                      \
    "ldrsb r5, [r2, r4]\n\t"                                                                                       \
    "ldrsb r6, [r0, r4]\n\t"                                                                                       \
    "mov r7, r5\n\t"                                                                                               \
    "muls r7, r6\n\t" /* x0 w0 */                                                                                  \
    "add r8, r7\n\t"                                                                                               \
    "ldrsb r7, [r1, r4]\n\t"                                                                                       \
    "muls r5, r7\n\t" /* x0 w1 */                                                                                  \
    "add r10, r5\n\t"                                                                                              \
    "ldrsb r5, [r3, r4]\n\t"                                                                                       \
    "muls r6, r5\n\t" /* x1 w0 */                                                                                  \
    "add r9, r6\n\t"                                                                                               \
    "muls r7, r5\n\t" /* x1 w1 */                                                                                  \
    "add r11, r7\n\t"

/* One tap i of the lone pixel's 1x2 block (c0 == c1): three LDRSB, two MULS and two ADD to r8 (w0) and r10
 * (w1): 10 cycles for two MACs. */
#define MCU_CONV2D_S8_V6M_TAP1                                                                                     \
    "ldrsb r5, [r2, r4]\n\t"                                                                                       \
    "ldrsb r6, [r0, r4]\n\t"                                                                                       \
    "ldrsb r7, [r1, r4]\n\t"                                                                                       \
    "muls r6, r5\n\t" /* x0 w0 */                                                                                  \
    "add r8, r6\n\t"                                                                                              \
    "muls r7, r5\n\t" /* x0 w1 */                                                                                  \
    "add r10, r7\n\t"

/* The block's loop over taps TAP: r4 = k taps counted down (the last k % 4 first, then four a turn), each tap
 * reading element r4 - 1 of its rows through bases one below them (r0-r3 = the rows - 1), so the SUBS after it
 * sets the loop's flags (a MULS last would leave its own); accumulators r8-r11. */
#define MCU_CONV2D_S8_V6M_DOT(TAP)                                                                                  \
    "lsrs r5, r4, #1\n\t" /* carry: k odd */                                                                         \
    "bcc 1f\n\t"                                                                                                     \
    TAP                                                                                                              \
    "subs r4, #1\n"                                                                                                  \
    "1:\n\t"                                                                                                         \
    "lsrs r5, r4, #2\n\t" /* carry: two more taps before a multiple of four */                                       \
    "bcc 2f\n\t"                                                                                                     \
    TAP                                                                                                              \
    "subs r4, #1\n\t"                                                                                                \
    TAP                                                                                                              \
    "subs r4, #1\n"                                                                                                  \
    "2:\n\t"                                                                                                         \
    "cmp r4, #0\n\t"                                                                                                 \
    "beq 4f\n"                                                                                                       \
    "3:\n\t"                                                                                                         \
    TAP                                                                                                              \
    "subs r4, #1\n\t"                                                                                                \
    TAP                                                                                                              \
    "subs r4, #1\n\t"                                                                                                \
    TAP                                                                                                              \
    "subs r4, #1\n\t"                                                                                                \
    TAP                                                                                                              \
    "subs r4, #1\n\t"                                                                                                \
    "bne 3b\n"                                                                                                       \
    "4:\n\t"

/* The 2x2 GEMM block on ARMv6-M (Cortex-M0/M0+, and ARMv8-M baseline): acc[0..3] += the dot products of (w0, c0),
 * (w0, c1), (w1, c0), (w1, c1), k taps each. LDRSB only takes a register offset, so one index counting down serves
 * the four rows; with three value registers that is all eight low registers, and the accumulators live in r8-r11
 * (ADD reaches them). A whole function in assembly (AAPCS: w0, w1, c0, c1 in r0-r3, k and acc on the stack), as GCC
 * cannot always give inline assembly every low register (unoptimized and -Os builds keep r7 for the frame). Four
 * taps a loop turn; the last k % 4 run first. */
#define MCU_CONV2D_S8_REG_ARG __attribute__((unused)) /* read by the assembly from r0-r3 and the stack */
__attribute__((naked, noinline, unused)) static void
mcu_conv2d_s8_dot2x2_v6m(const int8_t *w0 MCU_CONV2D_S8_REG_ARG, const int8_t *w1 MCU_CONV2D_S8_REG_ARG,
                         const int8_t *c0 MCU_CONV2D_S8_REG_ARG, const int8_t *c1 MCU_CONV2D_S8_REG_ARG,
                         int32_t k MCU_CONV2D_S8_REG_ARG, int32_t *acc MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t" /* GCC hands Thumb-1 assembly over in divided syntax */
            MCU_CONV2D_S8_V6M_ENTER /* 36 bytes pushed: k at sp + 36, acc at sp + 40 */
            "ldr r4, [sp, #40]\n\t"
            "ldm r4, {r4, r5, r6, r7}\n\t"
            "mov r8, r4\n\t"
            "mov r9, r5\n\t"
            "mov r10, r6\n\t"
            "mov r11, r7\n\t"
            "ldr r4, [sp, #36]\n\t"
            "subs r0, #1\n\t"
            "subs r1, #1\n\t"
            "subs r2, #1\n\t"
            "subs r3, #1\n\t"
            MCU_CONV2D_S8_V6M_DOT(MCU_CONV2D_S8_V6M_TAP)
            "ldr r4, [sp, #40]\n\t"
            "mov r5, r8\n\t"
            "mov r6, r9\n\t"
            "mov r7, r10\n\t"
            "stm r4!, {r5, r6, r7}\n\t"
            "mov r5, r11\n\t"
            "str r5, [r4]\n\t"
            MCU_CONV2D_S8_V6M_LEAVE);
}
#else
/* The 2x2 GEMM block without the DSP extension (host, Cortex-M3): four int32 dot products of length k. */
static inline void mcu_conv2d_s8_dot2x2_v6m(const int8_t *w0, const int8_t *w1, const int8_t *c0, const int8_t *c1,
                                            int32_t k, int32_t acc[4])
{
    int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3];
    int32_t i;
    for (i = k - 1; i >= 0; --i) {
        const int32_t x0 = c0[i], x1 = c1[i], wa = w0[i], wb = w1[i];
        a00 += x0 * wa;
        a01 += x1 * wa;
        a10 += x0 * wb;
        a11 += x1 * wb;
    }
    acc[0] = a00;
    acc[1] = a01;
    acc[2] = a10;
    acc[3] = a11;
}
#endif
#endif

/* The 2x2 GEMM block: two weight rows (output channels) against two columns (pixels), four int32 dot products of
 * length k. With the DSP extension, SXTB16 splits four int8 into lanes (0, 2) and (1, 3) of both the column and the
 * weight word, so SMLAD does two MACs per instruction without reordering the weights. */
static MCU_INLINE void mcu_conv2d_s8_dot2x2(const int8_t *w0, const int8_t *w1, const int8_t *c0,
                                                      const int8_t *c1, int32_t k, int32_t k16, int32_t acc[4])
{
#if MCU_CONV2D_S8_DSP_ASM
    int32_t i;
    if (k16) { /* k % 16 == 0: the assembly loop only */
        mcu_conv2d_s8_dot2x2_steps(w0, w1, c0, c1, k, 1, acc);
        return;
    }
    for (i = mcu_conv2d_s8_dot2x2_steps(w0, w1, c0, c1, k, 0, acc); i < k; ++i) {
        const int32_t x0 = c0[i], x1 = c1[i];
        acc[0] += x0 * w0[i];
        acc[1] += x1 * w0[i];
        acc[2] += x0 * w1[i];
        acc[3] += x1 * w1[i];
    }
#else
    (void)k16;
    mcu_conv2d_s8_dot2x2_v6m(w0, w1, c0, c1, k, acc);
#endif
}

#endif
