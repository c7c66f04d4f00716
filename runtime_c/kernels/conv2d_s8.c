#include "conv2d_s8.h"
#include "conv2d_s8_dw.h"

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
__attribute__((naked, noinline)) static void
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

/* How the GEMM paths requantize, decided once per call: MCU_CONV2D_S8_RQ_ANY (by a call: fixed mode, div, scales
 * that are not finite), _PLAIN (mcu_requant_plain_scaled inline), _S8 (plain over the full int8 range: one SSAT). */
#define MCU_CONV2D_S8_RQ_ANY 0
#define MCU_CONV2D_S8_RQ_PLAIN 1
#define MCU_CONV2D_S8_RQ_S8 2

/** The requantization mode (MCU_CONV2D_S8_RQ_*) of p's rq. */
static int32_t mcu_conv2d_s8_rq_mode(const mcu_conv2d_s8_params *p)
{
#if defined(__arm__) && !defined(__ARM_FP) /* soft float: not worth inlining at every output (fixed is the default) */
    (void)p;
    return MCU_CONV2D_S8_RQ_ANY;
#else
    if (!p->rq_plain) {
        return MCU_CONV2D_S8_RQ_ANY;
    }
    return p->rq.qmin == -128 && p->rq.qmax == 127 ? MCU_CONV2D_S8_RQ_S8 : MCU_CONV2D_S8_RQ_PLAIN;
#endif
}

#if defined(__arm__) && !defined(__ARM_FP)
#if defined(__GNUC__) && defined(__thumb__) && !defined(__thumb2__)
/* The fixed-mode requantization of the 2x2 block on ARMv6-M, in assembly: GCC spills most of its values around the
 * GEMM's. Frame (sp + ..): 4 oc, 8 oc1, 12 y1 - y0, 32 y0, 36 mult, 40 shift, 44 -per_channel, 48 zp - qmin,
 * 52 qmax - zp, 56 zp. Per channel (MCU_CONV2D_S8_V6M_RQ_HEAD): r5 = y0 + oc, mult and shift read once (the
 * channel's byte offset is 4 oc & -per_channel), mult split into mh = r0, ml = r1 (mcu_split16), a left shift
 * applied to both accumulators (r3, r4), r2 = the right shift e, ip = 2^e >> 1; then each output by
 * MCU_CONV2D_S8_V6M_RQ_OUT (conv2d_s8.h). */
#define MCU_CONV2D_S8_V6M_RQ_HEAD(cslot, load_acc)                                                                 \
    "ldr r2, [sp, #" #cslot "]\n\t"                                                                                \
    "ldr r5, [sp, #32]\n\t"                                                                                        \
    "adds r5, r2\n\t"                                                                                              \
    "lsls r2, r2, #2\n\t"                                                                                          \
    "ldr r7, [sp, #44]\n\t"                                                                                        \
    "ands r2, r7\n\t"                                                                                              \
    "ldr r7, [sp, #36]\n\t"                                                                                        \
    "ldr r0, [r7, r2]\n\t"                                                                                         \
    "ldr r7, [sp, #40]\n\t"                                                                                        \
    "ldr r2, [r7, r2]\n\t"                                                                                         \
    "sxth r1, r0\n\t"                                                                                              \
    "asrs r0, r0, #15\n\t"                                                                                         \
    "adds r0, #1\n\t"                                                                                              \
    "asrs r0, r0, #1\n\t"                                                                                          \
    load_acc /* r3, r4: the channel's two accumulators */                                                         \
    "cmp r2, #0\n\t"                                                                                               \
    "bge 1f\n\t"                                                                                                   \
    "negs r2, r2\n\t"                                                                                              \
    "lsls r3, r2\n\t"                                                                                              \
    "lsls r4, r2\n\t"                                                                                              \
    "movs r2, #0\n"                                                                                                \
    "1:\n\t"                                                                                                       \
    "movs r6, #1\n\t"                                                                                              \
    "lsls r6, r2\n\t"                                                                                              \
    "lsrs r6, r6, #1\n\t"                                                                                          \
    "mov ip, r6\n\t"
/* The channel's outputs: pixel 0's at r5, pixel 1's at r5 + (y1 - y0). */
#define MCU_CONV2D_S8_V6M_RQ_Y0 "strb r3, [r5, #0]\n\t"
#define MCU_CONV2D_S8_V6M_RQ_Y1 "ldr r6, [sp, #12]\n\tstrb r3, [r5, r6]\n\t"
#define MCU_CONV2D_S8_V6M_RQ_CHANNEL(cslot, load_acc)                                                              \
    MCU_CONV2D_S8_V6M_RQ_HEAD(cslot, load_acc)                                                                     \
    MCU_CONV2D_S8_V6M_RQ_OUT(MCU_CONV2D_S8_V6M_RQ_Y0)                                                              \
    "mov r3, r4\n\t"                                                                                               \
    MCU_CONV2D_S8_V6M_RQ_OUT(MCU_CONV2D_S8_V6M_RQ_Y1)

/* MCU_CONV2D_S8_V6M_RQ_HEAD from a table built once per call (mcu_conv2d_s8_rq_table): lr walks its records of
 * four words (mh, ml, e | left << 8 | channel << 16, 2^e >> 1), one per channel in the order the blocks visit them;
 * shifts by a register read its low byte only. */
#define MCU_CONV2D_S8_V6M_RQ_HEAD_T(load_acc)                                                                      \
    "mov r6, lr\n\t"                                                                                               \
    "ldm r6!, {r0, r1, r2, r7}\n\t"                                                                                \
    "mov lr, r6\n\t"                                                                                               \
    "mov ip, r7\n\t"                                                                                               \
    "lsrs r5, r2, #16\n\t"                                                                                         \
    "ldr r6, [sp, #32]\n\t"                                                                                        \
    "adds r5, r6\n\t"                                                                                              \
    load_acc /* r3, r4: the channel's two accumulators */                                                         \
    "lsrs r6, r2, #8\n\t" /* the left shift in the low byte */                                                     \
    "lsls r3, r6\n\t"                                                                                              \
    "lsls r4, r6\n\t"
#define MCU_CONV2D_S8_V6M_RQ_CHANNEL_T(load_acc)                                                                   \
    MCU_CONV2D_S8_V6M_RQ_HEAD_T(load_acc)                                                                          \
    MCU_CONV2D_S8_V6M_RQ_OUT(MCU_CONV2D_S8_V6M_RQ_Y0)                                                              \
    "mov r3, r4\n\t"                                                                                               \
    MCU_CONV2D_S8_V6M_RQ_OUT(MCU_CONV2D_S8_V6M_RQ_Y1)

/* The frame's requantization fields (sp + 36 .. 56) from rq (in r0); r0-r3 are kept, r4-r7 scratch. */
#define MCU_CONV2D_S8_V6M_RQ_FRAME                                                                                 \
    "ldr r4, [r0, #4]\n\t"                                                                                         \
    "str r4, [sp, #36]\n\t"                                                                                        \
    "ldr r4, [r0, #8]\n\t"                                                                                         \
    "str r4, [sp, #40]\n\t"                                                                                        \
    "ldr r4, [r0, #12]\n\t"                                                                                        \
    "negs r4, r4\n\t"                                                                                              \
    "str r4, [sp, #44]\n\t"                                                                                        \
    "ldr r4, [r0, #20]\n\t" /* zp */                                                                               \
    "ldr r5, [r0, #24]\n\t"                                                                                        \
    "ldr r6, [r0, #28]\n\t"                                                                                        \
    "subs r5, r4, r5\n\t" /* zp - qmin */                                                                          \
    "subs r6, r6, r4\n\t" /* qmax - zp */                                                                          \
    "str r5, [sp, #48]\n\t"                                                                                        \
    "str r6, [sp, #52]\n\t"                                                                                        \
    "str r4, [sp, #56]\n\t"

/* r8-r11 for the outputs: zp - qmin, qmax - zp, zp, 2^30 (r6 scratch; r0-r5 kept). */
#define MCU_CONV2D_S8_V6M_RQ_SETUP                                                                                 \
    "ldr r6, [sp, #48]\n\t"                                                                                        \
    "mov r8, r6\n\t"                                                                                               \
    "ldr r6, [sp, #52]\n\t"                                                                                        \
    "mov r9, r6\n\t"                                                                                               \
    "ldr r6, [sp, #56]\n\t"                                                                                        \
    "mov r10, r6\n\t"                                                                                              \
    "movs r6, #1\n\t"                                                                                              \
    "lsls r6, r6, #30\n\t"                                                                                         \
    "mov r11, r6\n\t"

/* The assembly reads mcu_requant at these offsets. */
typedef char mcu_conv2d_s8_rq_layout[(offsetof(mcu_requant, mult) == 4 && offsetof(mcu_requant, shift) == 8 &&
                                      offsetof(mcu_requant, per_channel) == 12 && offsetof(mcu_requant, zp) == 20 &&
                                      offsetof(mcu_requant, qmin) == 24 && offsetof(mcu_requant, qmax) == 28)
                                         ? 1
                                         : -1];

/** The fixed-mode (double rounding) case of mcu_conv2d_s8_store2x2 for qmin <= zp <= qmax: the four outputs of
 * channels oc (acc[0], acc[1]) and oc1 (acc[2], acc[3]) to y0[oc], y1[oc], y0[oc1], y1[oc1]. AAPCS: rq, acc, oc,
 * oc1 in r0-r3, y0 and y1 on the stack (sp + 96, 100 in the frame); acc at sp + 0. */
__attribute__((naked, noinline)) static void
mcu_conv2d_s8_store2x2_fixed(const mcu_requant *rq MCU_CONV2D_S8_REG_ARG, const int32_t *acc MCU_CONV2D_S8_REG_ARG,
                             int32_t oc MCU_CONV2D_S8_REG_ARG, int32_t oc1 MCU_CONV2D_S8_REG_ARG,
                             int8_t *y0 MCU_CONV2D_S8_REG_ARG, int8_t *y1 MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_V6M_ENTER
            "sub sp, #60\n\t"
            "str r1, [sp, #0]\n\t"
            "str r2, [sp, #4]\n\t"
            "str r3, [sp, #8]\n\t"
            MCU_CONV2D_S8_V6M_RQ_FRAME
            "ldr r4, [sp, #96]\n\t"
            "str r4, [sp, #32]\n\t"
            "ldr r5, [sp, #100]\n\t"
            "subs r5, r5, r4\n\t"
            "str r5, [sp, #12]\n\t"
            MCU_CONV2D_S8_V6M_RQ_SETUP
            MCU_CONV2D_S8_V6M_RQ_CHANNEL(4, "ldr r7, [sp, #0]\n\tldr r3, [r7, #0]\n\tldr r4, [r7, #4]\n\t")
            MCU_CONV2D_S8_V6M_RQ_CHANNEL(8, "ldr r7, [sp, #0]\n\tldr r3, [r7, #8]\n\tldr r4, [r7, #12]\n\t")
            "add sp, #60\n\t"
            MCU_CONV2D_S8_V6M_LEAVE);
}
/* What mcu_conv2d_s8_gemm_v6m reads (offsets in its assembly). */
typedef struct {
    const int8_t *c0, *c1;   /* 0, 4: the two pixels' columns (equal for a lone pixel) */
    int32_t k;               /* 8 */
    const int8_t *w;         /* 12: weight rows of k bytes */
    const int32_t *kbias;    /* 16 */
    int32_t c_out;           /* 20 */
    int8_t *y0, *y1;         /* 24, 28 */
    const mcu_requant *rq;   /* 32 */
    const int32_t *rqt;      /* 36: the requantization table (the _t variants), or NULL */
} mcu_conv2d_s8_gemm_v6m_args;

/* The fused GEMM's loop over channel pairs, BLOCK: the dot products and the requantization of one pair. Locals: a
 * (sp + 0), oc, oc1, channel oc1's accumulators (sp + 24, 28: its two pixels), the requantization
 * frame (MCU_CONV2D_S8_V6M_RQ_HEAD), w - 1, c0 - 1, c1 - 1 (sp + 60 .. 68: MCU_CONV2D_S8_V6M_DOT's bases). */
#define MCU_CONV2D_S8_V6M_GEMM(BLOCK)                                                                              \
    MCU_CONV2D_S8_V6M_ENTER                                                                                        \
    "sub sp, #72\n\t"                                                                                              \
    "str r0, [sp, #0]\n\t"                                                                                         \
    "ldm r0!, {r1, r2}\n\t" /* c0, c1 */                                                                            \
    "subs r1, #1\n\t"                                                                                              \
    "subs r2, #1\n\t"                                                                                              \
    "str r1, [sp, #64]\n\t"                                                                                        \
    "str r2, [sp, #68]\n\t"                                                                                        \
    "ldr r1, [r0, #4]\n\t" /* w */                                                                                 \
    "subs r1, #1\n\t"                                                                                              \
    "str r1, [sp, #60]\n\t"                                                                                        \
    "subs r0, #8\n\t"                                                                                              \
    "ldr r1, [r0, #36]\n\t"                                                                                        \
    "mov lr, r1\n\t"                                                                                               \
    "ldr r1, [r0, #24]\n\t"                                                                                        \
    "str r1, [sp, #32]\n\t"                                                                                        \
    "ldr r2, [r0, #28]\n\t"                                                                                        \
    "subs r2, r2, r1\n\t"                                                                                          \
    "str r2, [sp, #12]\n\t"                                                                                        \
    "ldr r0, [r0, #32]\n\t"                                                                                        \
    MCU_CONV2D_S8_V6M_RQ_FRAME                                                                                     \
    "movs r2, #0\n\t"                                                                                              \
    "str r2, [sp, #4]\n\t"                                                                                         \
    "ldr r7, [sp, #0]\n\t"                                                                                         \
    "ldr r4, [r7, #20]\n"                                                                                          \
    "5:\n\t" /* channels oc = r2, oc1 = min(oc + 1, c_out - 1); r7 = a, r4 = c_out */                              \
    "adds r3, r2, #1\n\t"                                                                                          \
    "cmp r3, r4\n\t"                                                                                               \
    "blt 1f\n\t"                                                                                                   \
    "mov r3, r2\n"                                                                                                 \
    "1:\n\t"                                                                                                       \
    "str r3, [sp, #8]\n\t"                                                                                         \
    "ldr r4, [r7, #16]\n\t"                                                                                        \
    "lsls r5, r2, #2\n\t"                                                                                          \
    "ldr r5, [r4, r5]\n\t"                                                                                         \
    "lsls r6, r3, #2\n\t"                                                                                          \
    "ldr r6, [r4, r6]\n\t"                                                                                         \
    "mov r8, r5\n\t"                                                                                               \
    "mov r9, r5\n\t"                                                                                               \
    "mov r10, r6\n\t"                                                                                              \
    "mov r11, r6\n\t"                                                                                              \
    "ldr r4, [r7, #8]\n\t"                                                                                         \
    "ldr r0, [sp, #60]\n\t"                                                                                        \
    "muls r3, r4\n\t"                                                                                              \
    "adds r1, r0, r3\n\t" /* w1 - 1 */                                                                             \
    "muls r2, r4\n\t"                                                                                              \
    "adds r0, r0, r2\n\t" /* w0 - 1 */                                                                             \
    "ldr r2, [sp, #64]\n\t"                                                                                        \
    "ldr r3, [sp, #68]\n\t"                                                                                        \
    BLOCK                                                                                                          \
    "ldr r7, [sp, #0]\n\t"                                                                                         \
    "ldr r2, [sp, #4]\n\t"                                                                                         \
    "adds r2, #2\n\t"                                                                                              \
    "str r2, [sp, #4]\n\t"                                                                                         \
    "ldr r4, [r7, #20]\n\t"                                                                                        \
    "cmp r2, r4\n\t"                                                                                               \
    "bge 6f\n\t"                                                                                                   \
    "b 5b\n"                                                                                                       \
    "6:\n\t"                                                                                                       \
    "add sp, #72\n\t"                                                                                              \
    MCU_CONV2D_S8_V6M_LEAVE

/* A GEMM function's body (MCU_CONV2D_S8_V6M_GEMM) up to its requantization RQ. 2x2: the 2x2 loop, then channel
 * oc's accumulators stay in r3, r4 and oc1's wait on the stack (sp + 24, 28); 1x2 (a lone pixel): the 1x2 loop,
 * oc's accumulator in r3, oc1's on the stack (sp + 24). */
#define MCU_CONV2D_S8_V6M_BLOCK2X2(RQ)                                                                             \
    MCU_CONV2D_S8_V6M_GEMM(MCU_CONV2D_S8_V6M_DOT(MCU_CONV2D_S8_V6M_TAP)                                            \
                           "mov r3, r8\n\t"                                                                        \
                           "mov r4, r9\n\t"                                                                        \
                           "mov r6, r10\n\t"                                                                       \
                           "mov r7, r11\n\t"                                                                       \
                           "str r6, [sp, #24]\n\t"                                                                 \
                           "str r7, [sp, #28]\n\t" MCU_CONV2D_S8_V6M_RQ_SETUP RQ)
#define MCU_CONV2D_S8_V6M_BLOCK1X2(RQ)                                                                             \
    MCU_CONV2D_S8_V6M_GEMM(MCU_CONV2D_S8_V6M_DOT(MCU_CONV2D_S8_V6M_TAP1)                                           \
                           "mov r3, r8\n\t"                                                                        \
                           "mov r6, r10\n\t"                                                                       \
                           "str r6, [sp, #24]\n\t" MCU_CONV2D_S8_V6M_RQ_SETUP RQ)

/** mcu_conv2d_s8_gemm on ARMv6-M without weight zero points, fixed mode with double rounding, qmin <= zp <= qmax:
 * every pair of output channels in one function (no calls, no C around the blocks): accumulators from kbias, the
 * 2x2 loop, then the four outputs requantized as in mcu_conv2d_s8_store2x2_fixed. */
__attribute__((naked, noinline)) static void mcu_conv2d_s8_gemm_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
                                                                    MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_V6M_BLOCK2X2(
            MCU_CONV2D_S8_V6M_RQ_CHANNEL(4, "")
            MCU_CONV2D_S8_V6M_RQ_CHANNEL(8, "ldr r3, [sp, #24]\n\tldr r4, [sp, #28]\n\t")));
}

/** mcu_conv2d_s8_gemm_v6m for a lone pixel (c0 == c1, y0 == y1): the 1x2 block (MCU_CONV2D_S8_V6M_TAP1) and one
 * output per channel. */
__attribute__((naked, noinline)) static void mcu_conv2d_s8_gemm1_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
                                                                     MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_V6M_BLOCK1X2(
            MCU_CONV2D_S8_V6M_RQ_HEAD(4, "")
            MCU_CONV2D_S8_V6M_RQ_OUT(MCU_CONV2D_S8_V6M_RQ_Y0)
            MCU_CONV2D_S8_V6M_RQ_HEAD(8, "ldr r3, [sp, #24]\n\t")
            MCU_CONV2D_S8_V6M_RQ_OUT(MCU_CONV2D_S8_V6M_RQ_Y0)));
}
/** mcu_conv2d_s8_gemm_v6m with the requantization table a->rqt. */
__attribute__((naked, noinline)) static void mcu_conv2d_s8_gemm_t_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
                                                                      MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_V6M_BLOCK2X2(
            MCU_CONV2D_S8_V6M_RQ_CHANNEL_T("")
            MCU_CONV2D_S8_V6M_RQ_CHANNEL_T("ldr r3, [sp, #24]\n\tldr r4, [sp, #28]\n\t")));
}

/** mcu_conv2d_s8_gemm1_v6m with the requantization table a->rqt. */
__attribute__((naked, noinline)) static void mcu_conv2d_s8_gemm1_t_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
                                                                       MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_V6M_BLOCK1X2(
            MCU_CONV2D_S8_V6M_RQ_HEAD_T("")
            MCU_CONV2D_S8_V6M_RQ_OUT(MCU_CONV2D_S8_V6M_RQ_Y0)
            MCU_CONV2D_S8_V6M_RQ_HEAD_T("ldr r3, [sp, #24]\n\t")
            MCU_CONV2D_S8_V6M_RQ_OUT(MCU_CONV2D_S8_V6M_RQ_Y0)));
}

/* Channels of the requantization table (16 bytes each, on the caller's stack: at 128, the pointwise and im2col
 * call chains stay below the depthwise path's stack). */
#define MCU_CONV2D_S8_RQT_CHANNELS 128

/** The requantization table of mcu_conv2d_s8_gemm_t_v6m in t (4 words per channel, channels in block order: oc,
 * then oc + 1 or oc again for a lone last one), or NULL where the fused GEMM does not run (weight zero points, not
 * fixed mode with double rounding, zp outside [qmin, qmax]), c_out is above MCU_CONV2D_S8_RQT_CHANNELS, or fewer
 * than `pairs` 2 pixel pairs would share it. */
static const int32_t *mcu_conv2d_s8_rq_table(const mcu_conv2d_s8_params *p, int32_t pairs, int32_t *t)
{
    const mcu_requant *rq = &p->rq;
    const int32_t c_out = p->g.c_out;
    int32_t oc, i;
    if (p->w_zp != NULL || rq->mult == NULL || rq->single_round || rq->qmin > rq->zp || rq->zp > rq->qmax ||
        c_out > MCU_CONV2D_S8_RQT_CHANNELS || pairs < 2) {
        return NULL;
    }
    for (oc = 0; oc < c_out; oc += 2) {
        for (i = 0; i < 2; ++i) {
            const int32_t ch = oc + i < c_out ? oc + i : oc, c = rq->per_channel ? ch : 0;
            const int32_t m = rq->mult[c], shift = rq->shift[c], e = shift > 0 ? shift : 0;
            int32_t *r = t + 4 * (oc + i);
            mcu_split16(m, &r[0], &r[1]);
            r[2] = e | (shift < 0 ? -shift : 0) << 8 | ch << 16;
            r[3] = (int32_t)((1u << e) >> 1);
        }
    }
    return t;
}
#define MCU_CONV2D_S8_GEMM_V6M 1
#undef MCU_CONV2D_S8_V6M_RQ_HEAD
#undef MCU_CONV2D_S8_V6M_RQ_Y0
#undef MCU_CONV2D_S8_V6M_RQ_Y1
#undef MCU_CONV2D_S8_V6M_RQ_CHANNEL
#undef MCU_CONV2D_S8_V6M_RQ_HEAD_T
#undef MCU_CONV2D_S8_V6M_RQ_CHANNEL_T
#undef MCU_CONV2D_S8_V6M_RQ_FRAME
#undef MCU_CONV2D_S8_V6M_RQ_SETUP
#undef MCU_CONV2D_S8_V6M_GEMM
#undef MCU_CONV2D_S8_V6M_BLOCK2X2
#undef MCU_CONV2D_S8_V6M_BLOCK1X2
#undef MCU_CONV2D_S8_V6M_DOT
#undef MCU_CONV2D_S8_V6M_TAP
#undef MCU_CONV2D_S8_V6M_TAP1
#undef MCU_CONV2D_S8_REG_ARG
#else
/** The fixed-mode (double rounding) case of mcu_conv2d_s8_store2x2, out of line: with the GEMM's live values
 * around it, GCC spills most of the requantization's. */
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_store2x2_fixed(const mcu_requant *rq, const int32_t acc[4], int32_t oc,
                                                               int32_t oc1, int8_t *y0, int8_t *y1)
{
    int32_t v00, v01, v10, v11;
    mcu_requant_fixed_pair(rq, oc, acc[0], acc[1], &v00, &v01);
    mcu_requant_fixed_pair(rq, oc1, acc[2], acc[3], &v10, &v11);
    y0[oc] = (int8_t)v00;
    y1[oc] = (int8_t)v01;
    y0[oc1] = (int8_t)v10;
    y1[oc1] = (int8_t)v11;
}
#endif
#endif

/* The 2x2 block's four accumulators (acc[0], acc[1]: channel oc of pixels 0, 1; acc[2], acc[3]: channel oc1)
 * requantized in mode `mode` and stored to y0, y1 (the pixels' outputs): every value is computed before the first
 * store, so the scales are read once per channel (an int8 store may alias them). */
static MCU_INLINE void mcu_conv2d_s8_store2x2(const mcu_requant *rq, int32_t mode, const int32_t acc[4],
                                                        int32_t oc, int32_t oc1, int8_t *y0, int8_t *y1)
{
    int32_t v00, v01, v10, v11;
#if defined(__arm__) && !defined(__ARM_FP)
    if (rq->mult != NULL && !rq->single_round && rq->qmin <= rq->zp && rq->zp <= rq->qmax) {
        mcu_conv2d_s8_store2x2_fixed(rq, acc, oc, oc1, y0, y1);
        return;
    }
#endif
    if (mode == MCU_CONV2D_S8_RQ_ANY) {
        v00 = mcu_conv2d_s8_requant_any(rq, acc[0], oc);
        v01 = mcu_conv2d_s8_requant_any(rq, acc[1], oc);
        v10 = mcu_conv2d_s8_requant_any(rq, acc[2], oc1);
        v11 = mcu_conv2d_s8_requant_any(rq, acc[3], oc1);
    } else {
        const float s0 = rq->scale[rq->per_channel ? oc : 0], s1 = rq->scale[rq->per_channel ? oc1 : 0];
        if (mode == MCU_CONV2D_S8_RQ_S8) {
            v00 = mcu_requant_plain_s8(rq, acc[0], s0);
            v01 = mcu_requant_plain_s8(rq, acc[1], s0);
            v10 = mcu_requant_plain_s8(rq, acc[2], s1);
            v11 = mcu_requant_plain_s8(rq, acc[3], s1);
        } else {
            v00 = mcu_requant_plain_scaled(rq, acc[0], s0);
            v01 = mcu_requant_plain_scaled(rq, acc[1], s0);
            v10 = mcu_requant_plain_scaled(rq, acc[2], s1);
            v11 = mcu_requant_plain_scaled(rq, acc[3], s1);
        }
    }
    y0[oc] = (int8_t)v00;
    y1[oc] = (int8_t)v01;
    y0[oc1] = (int8_t)v10;
    y1[oc1] = (int8_t)v11;
}

/* Columns c0, c1 of two pixels against every weight row; y0, y1: the two pixels' outputs (c_out channels each). A
 * column is `rows` runs of `seg` taps, run r at r * rs (im2col and pointwise: one run; direct: one per kernel row
 * of a window inside the input), against weight rows of rows * seg taps. A lone last output channel runs as its
 * own pair and drops the duplicate; so does a lone pixel (c0 == c1, y0 == y1). */
static MCU_INLINE void mcu_conv2d_s8_gemm_body(const mcu_conv2d_s8_params *p, int32_t mode,
                                                         const int8_t *c0, const int8_t *c1, int32_t rows,
                                                         int32_t seg, size_t rs, int32_t k16, int32_t first,
                                                         int8_t *y0, int8_t *y1)
{
    const mcu_requant rq = p->rq; /* a local copy: the int8 stores below could alias p, which stops hoisting */
    const int32_t c_out = p->g.c_out, k = rows * seg;
    const int32_t *kbias = p->kbias, *w_zp = p->w_zp;
    const int8_t *w = p->w + (size_t)first * k;
    int32_t s0 = 0, s1 = 0, oc, r, i;
    if (w_zp) {
        for (r = 0; r < rows; ++r) {
            for (i = 0; i < seg; ++i) {
                s0 += c0[r * rs + i];
                s1 += c1[r * rs + i];
            }
        }
    }
    for (oc = first; oc < c_out; oc += 2, w += 2 * (size_t)k) {
        const int32_t oc1 = oc + 1 < c_out ? oc + 1 : oc;
        int32_t acc[4];
        acc[0] = acc[1] = kbias[oc];
        acc[2] = acc[3] = kbias[oc1];
        if (w_zp) {
            acc[0] -= w_zp[oc] * s0;
            acc[1] -= w_zp[oc] * s1;
            acc[2] -= w_zp[oc1] * s0;
            acc[3] -= w_zp[oc1] * s1;
        }
#if MCU_CONV2D_S8_DSP_ASM
        if (k16 && rows > 1) {
            mcu_conv2d_s8_dot2x2_rows16(w, w + (size_t)(oc1 - oc) * k, c0, c1, seg, rows, rs, acc);
        } else
#endif
        {
            for (r = 0; r < rows; ++r) {
                mcu_conv2d_s8_dot2x2(w + (size_t)r * seg, w + (size_t)(oc1 - oc) * k + (size_t)r * seg,
                                     c0 + r * rs, c1 + r * rs, seg, k16, acc);
            }
        }
        mcu_conv2d_s8_store2x2(&rq, mode, acc, oc, oc1, y0, y1);
    }
}

#if MCU_CONV2D_S8_DSP_ASM && defined(__ARM_FP) && (__ARM_FP & 4)
#define MCU_CONV2D_S8_BLOCKS_ASM 1

/** The state of mcu_conv2d_s8_blocks_s8's loop, on the stack (every register is taken inside the loop). */
typedef struct {
    const int8_t *c0, *c1; /* the columns (loaded together) */
    const int8_t *end;     /* c0's end */
    const int8_t *end16;   /* c0's end of the 16-tap loop (c0 + k - k % 16) */
    const int32_t *kbias;  /* the next pair's folded biases */
    const float *scale;    /* per channel: the next pair's scales */
    int8_t *y0, *y1;       /* the next pair's outputs of pixels 0, 1 (loaded together) */
    const int8_t *y0_end;  /* y0 after the last pair */
    int32_t k, zp;
} mcu_conv2d_s8_blocks_state;

/* The block loop's start: the pair's folded biases, then the 16-tap loop. */
#define MCU_CONV2D_S8_BLOCKS_BIAS                                                                                     \
    "ldr %[we], %[skb]\n\t"                                                                                            \
    "ldrd %[a00], %[a10], [%[we]], #8\n\t"                                                                             \
    "str %[we], %[skb]\n\t"                                                                                            \
    "mov %[a01], %[a00]\n\t"                                                                                           \
    "mov %[a11], %[a10]\n\t"

/* Any two columns: four pointers; the next pair's rows start where w1 ended and k further. */
#define MCU_CONV2D_S8_BLOCKS_HEAD                                                                                     \
    "2:\n\t"                                                                                                           \
    "ldrd %[c0], %[c1], %[sc0]\n\t" MCU_CONV2D_S8_BLOCKS_BIAS "1:\n\t" MCU_CONV2D_S8_SIXTEEN                           \
    "ldr %[we], %[send]\n\t"                                                                                           \
    "cmp %[c0], %[we]\n\t"                                                                                             \
    "bne 1b\n\t"                                                                                                       \
    "ldr %[we], %[sk]\n\t"                                                                                             \
    "mov %[w0], %[w1]\n\t"                                                                                             \
    "add %[w1], %[w1], %[we]\n\t"

/* The second column k bytes after the first ([kc] = k, in place of c1 and w1): the next pair's rows start k after
 * where w0 ended. */
#define MCU_CONV2D_S8_BLOCKS_HEADK                                                                                    \
    "2:\n\t"                                                                                                           \
    "ldr %[c0], %[sc0]\n\t" MCU_CONV2D_S8_BLOCKS_BIAS "1:\n\t" MCU_CONV2D_S8_STEPK MCU_CONV2D_S8_STEPK                   \
        MCU_CONV2D_S8_STEPK MCU_CONV2D_S8_STEPK "ldr %[we], %[send]\n\t"                                                \
    "cmp %[c0], %[we]\n\t"                                                                                             \
    "bne 1b\n\t"                                                                                                       \
    "add %[w0], %[w0], %[kc]\n\t"

/* As MCU_CONV2D_S8_BLOCKS_HEADK for k % 16 != 0, k % 4 == 0: the 16-tap loop (when k >= 16), then 4-tap steps. */
#define MCU_CONV2D_S8_BLOCKS_HEADK4                                                                                   \
    "2:\n\t"                                                                                                           \
    "ldr %[c0], %[sc0]\n\t" MCU_CONV2D_S8_BLOCKS_BIAS "ldr %[we], %[send16]\n\t"                                          \
    "cmp %[c0], %[we]\n\t"                                                                                             \
    "beq 3f\n\t"                                                                                                       \
    "1:\n\t" MCU_CONV2D_S8_STEPK MCU_CONV2D_S8_STEPK MCU_CONV2D_S8_STEPK MCU_CONV2D_S8_STEPK                             \
    "ldr %[we], %[send16]\n\t"                                                                                         \
    "cmp %[c0], %[we]\n\t"                                                                                             \
    "bne 1b\n\t"                                                                                                       \
    "3:\n\t" MCU_CONV2D_S8_STEPK "ldr %[we], %[send]\n\t"                                                              \
    "cmp %[c0], %[we]\n\t"                                                                                             \
    "bne 3b\n\t"                                                                                                       \
    "add %[w0], %[w0], %[kc]\n\t"

/* The two channels' scales (per channel) in s12, s13. */
#define MCU_CONV2D_S8_BLOCKS_SCALES                                                                                   \
    "ldr %[we], %[ssc]\n\t"                                                                                            \
    "vldmia %[we]!, {s12-s13}\n\t"                                                                                     \
    "str %[we], %[ssc]\n\t"

/* The rest: requantize (two values a VMOV each way), store, next pair. */
#define MCU_CONV2D_S8_BLOCKS_TAIL                                                                                     \
    "vmov s14, s15, %[a00], %[a01]\n\t"                                                                                \
    "vcvt.f32.s32 s14, s14\n\t"                                                                                        \
    "vcvt.f32.s32 s15, s15\n\t"                                                                                        \
    "vmul.f32 s14, s14, s12\n\t"                                                                                       \
    "vmul.f32 s15, s15, s12\n\t"                                                                                       \
    "vcvtr.s32.f32 s14, s14\n\t"                                                                                       \
    "vcvtr.s32.f32 s15, s15\n\t"                                                                                       \
    "vmov %[a00], %[a01], s14, s15\n\t"                                                                                \
    "vmov s14, s15, %[a10], %[a11]\n\t"                                                                                \
    "vcvt.f32.s32 s14, s14\n\t"                                                                                        \
    "vcvt.f32.s32 s15, s15\n\t"                                                                                        \
    "vmul.f32 s14, s14, s13\n\t"                                                                                       \
    "vmul.f32 s15, s15, s13\n\t"                                                                                       \
    "vcvtr.s32.f32 s14, s14\n\t"                                                                                       \
    "vcvtr.s32.f32 s15, s15\n\t"                                                                                       \
    "vmov %[a10], %[a11], s14, s15\n\t"                                                                                \
    "ldr %[wv], %[szp]\n\t"                                                                                            \
    "qadd %[a00], %[a00], %[wv]\n\t"                                                                                   \
    "qadd %[a01], %[a01], %[wv]\n\t"                                                                                   \
    "qadd %[a10], %[a10], %[wv]\n\t"                                                                                   \
    "qadd %[a11], %[a11], %[wv]\n\t"                                                                                   \
    "ssat %[a00], #8, %[a00]\n\t"                                                                                      \
    "ssat %[a01], #8, %[a01]\n\t"                                                                                      \
    "ssat %[a10], #8, %[a10]\n\t"                                                                                      \
    "ssat %[a11], #8, %[a11]\n\t"                                                                                      \
    "ldrd %[we], %[wv], %[sy0]\n\t"                                                                                    \
    "strb %[a00], [%[we]], #2\n\t"                                                                                     \
    "strb %[a10], [%[we], #-1]\n\t"                                                                                    \
    "strb %[a01], [%[wv]], #2\n\t"                                                                                     \
    "strb %[a11], [%[wv], #-1]\n\t"                                                                                    \
    "strd %[we], %[wv], %[sy0]\n\t"                                                                                    \
    "ldr %[wv], %[syend]\n\t"                                                                                          \
    "cmp %[we], %[wv]\n\t"                                                                                             \
    "bne 2b\n\t"

/* Operands of the block loop but the four pointers (at most 30 in all). */
#define MCU_CONV2D_S8_BLOCKS_OPERANDS                                                                                 \
    [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [x0e] "=&r"(x0e), [x0o] "=&r"(x0o),        \
        [x1e] "=&r"(x1e), [x1o] "=&r"(x1o), [wv] "=&r"(wv), [we] "=&r"(we), [skb] "+m"(st.kbias),                      \
        [ssc] "+m"(st.scale), [sy0] "+m"(st.y0)                                                                        \
    : [sc0] "m"(st.c0), [send] "m"(st.end), [send16] "m"(st.end16), [sk] "m"(st.k), [szp] "m"(st.zp),                 \
      [syend] "m"(st.y0_end)                                                                                           \
    : "cc", "memory", "s12", "s13", "s14", "s15"

/* Every pair of output channels 0 .. 2 * pairs - 1 of two columns of k taps (mcu_conv2d_s8_blocks_fit: k % 16 == 0,
 * or k % 4 == 0 with the second column k bytes after the first), requantized in mode
 * MCU_CONV2D_S8_RQ_S8 (float scale, full int8 range), w_zp NULL: one assembly loop over the pairs around the 16-tap
 * loop (the compiler's code around the block reloaded more from the stack), the requantization that of
 * mcu_requant_plain_s8: VCVT to float, VMUL by the scale, VCVTR (round half to even, saturating), QADD zp, SSAT #8. */
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_blocks_s8(const mcu_conv2d_s8_params *p, const int8_t *c0,
                                                          const int8_t *c1, int32_t k, int32_t pairs, int8_t *y0,
                                                          int8_t *y1)
{
    mcu_conv2d_s8_blocks_state st;
    int32_t a00, a01, a10, a11, x0e, x0o, x1e, x1o, wv, we;
    const int8_t *w0 = p->w, *w1 = p->w + k;
    st.c0 = c0;
    st.c1 = c1;
    st.end = c0 + k;
    st.end16 = c0 + (k & ~15);
    st.kbias = p->kbias;
    st.scale = p->rq.scale;
    st.y0 = y0;
    st.y1 = y1;
    st.y0_end = y0 + 2 * pairs;
    st.k = k;
    st.zp = p->rq.zp;
    if (c1 == c0 + k) { /* im2col's columns, a pointwise pair of adjacent pixels */
        const int8_t *wt;
        int32_t kc = k;
        if (k % 16 == 0) {
            __asm__ volatile(MCU_CONV2D_S8_BLOCKS_HEADK MCU_CONV2D_S8_BLOCKS_SCALES MCU_CONV2D_S8_BLOCKS_TAIL
                             : [c0] "=&r"(c0), [kc] "+r"(kc), [w0] "+r"(w0), [wt] "=&r"(wt),
                               MCU_CONV2D_S8_BLOCKS_OPERANDS);
        } else {
            __asm__ volatile(MCU_CONV2D_S8_BLOCKS_HEADK4 MCU_CONV2D_S8_BLOCKS_SCALES MCU_CONV2D_S8_BLOCKS_TAIL
                             : [c0] "=&r"(c0), [kc] "+r"(kc), [w0] "+r"(w0), [wt] "=&r"(wt),
                               MCU_CONV2D_S8_BLOCKS_OPERANDS);
        }
        return;
    }
    __asm__ volatile(MCU_CONV2D_S8_BLOCKS_HEAD MCU_CONV2D_S8_BLOCKS_SCALES MCU_CONV2D_S8_BLOCKS_TAIL
                     : [c0] "=&r"(c0), [c1] "=&r"(c1), [w0] "+r"(w0), [w1] "+r"(w1), MCU_CONV2D_S8_BLOCKS_OPERANDS);
}

/* The pointwise sweep (mcu_conv2d_s8_pw_sweep): the pixel pair's columns widened once to int16 lanes in the order
 * SMLAD takes them (per 4 taps: pixel 0's even and odd lanes, then pixel 1's), so the 2x2
 * block's 4-tap step loads them (no SXTB16 on the columns) and only splits the two weight words: six loads back to
 * back (a post-indexed load is followed by one on another base, so each pipelines), four SXTB16, eight SMLAD. The
 * second weight row lies k ([kc]) after the first. */
#define MCU_CONV2D_S8_PW_STEP                                                                                         \
    "ldr %[x0o], [%[px], #4]\n\t"                                                                                      \
    "ldr %[x1e], [%[px], #8]\n\t"                                                                                      \
    "ldr %[x1o], [%[px], #12]\n\t"                                                                                     \
    "ldr %[wt], [%[w0], %[kc]]\n\t"                                                                                    \
    "ldr %[x0e], [%[px]], #16\n\t"                                                                                     \
    "ldr %[wv], [%[w0]], #4\n\t"                                                                                       \
    "sxtb16 %[we], %[wv]\n\t"                                                                                          \
    "smlad %[a00], %[x0e], %[we], %[a00]\n\t"                                                                          \
    "smlad %[a01], %[x1e], %[we], %[a01]\n\t"                                                                          \
    "sxtb16 %[wv], %[wv], ror #8\n\t"                                                                                  \
    "smlad %[a00], %[x0o], %[wv], %[a00]\n\t"                                                                          \
    "smlad %[a01], %[x1o], %[wv], %[a01]\n\t"                                                                          \
    "sxtb16 %[we], %[wt]\n\t"                                                                                          \
    "smlad %[a10], %[x0e], %[we], %[a10]\n\t"                                                                          \
    "smlad %[a11], %[x1e], %[we], %[a11]\n\t"                                                                          \
    "sxtb16 %[wt], %[wt], ror #8\n\t"                                                                                  \
    "smlad %[a10], %[x0o], %[wt], %[a10]\n\t"                                                                          \
    "smlad %[a11], %[x1o], %[wt], %[a11]\n\t"
#define MCU_CONV2D_S8_PW_STEP2 MCU_CONV2D_S8_PW_STEP MCU_CONV2D_S8_PW_STEP
#define MCU_CONV2D_S8_PW_STEP4 MCU_CONV2D_S8_PW_STEP2 MCU_CONV2D_S8_PW_STEP2
#define MCU_CONV2D_S8_PW_STEP8 MCU_CONV2D_S8_PW_STEP4 MCU_CONV2D_S8_PW_STEP4

/* A 2x2 block's step loop, its 4-tap steps S, labels L (the loop) and M (MID's middle): ONCE, k is S (no loop, no
 * test); TURN, S a turn, then the test: another turn until the widened columns' end (s22); MID (k % 32 == 0), two S
 * a turn (k % 64 == 0) and, when k % 64 == 32, the first turn entered at its middle (one test per 64 taps where TURN
 * would test per 32). */
#define MCU_CONV2D_S8_PW_TEST(L)                                                                                       \
    "vmov %[we], s22\n\t"                                                                                              \
    "cmp %[px], %[we]\n\t"                                                                                             \
    "bne " L "b\n\t"
#define MCU_CONV2D_S8_PW_ONCE(S, L, M) S
#define MCU_CONV2D_S8_PW_TURN(S, L, M) L ":\n\t" S MCU_CONV2D_S8_PW_TEST(L)
#define MCU_CONV2D_S8_PW_MID(S, L, M)                                                                                  \
    "tst %[kc], #32\n\t"                                                                                               \
    "bne " M "f\n"                                                                                                     \
    L ":\n\t" S M ":\n\t" S MCU_CONV2D_S8_PW_TEST(L)

/* Two values of one channel (A, B: operand names) plus zp ([x0e]), saturating, then clamped to int8. */
#define MCU_CONV2D_S8_PW_SAT(A, B)                                                                                    \
    "qadd %[" A "], %[" A "], %[x0e]\n\t"                                                                              \
    "qadd %[" B "], %[" B "], %[x0e]\n\t"                                                                              \
    "ssat %[" A "], #8, %[" A "]\n\t"                                                                                  \
    "ssat %[" B "], #8, %[" B "]\n\t"

/* The variants of MCU_CONV2D_S8_PW_SWEEP's bookkeeping. REG (any k, in [kc]): the step loop moves the columns' and
 * the weights' pointers (MCU_CONV2D_S8_PW_STEP), each 2x2 block rewinds the columns by 4k; the biases' and scales'
 * pointers live in s16, s17. IMM (k = K, one turn): the steps address the columns and both weight rows at constant
 * offsets (MCU_CONV2D_S8_PW_STEPI), so nothing rewinds and [kc] is free to hold the biases' pointer (the scales lie
 * a constant s17 = scales - biases bytes from it), and the first step starts pixel 1's sums from the biases (no
 * MOVs). Each names: ENTRY, once per call; REWIND,
 * the columns and the pair's input back after the widening; PAIR, the pair's biases and scales from their start;
 * BLOCK, a block's four scales and the first 2x2 block's biases; NEXT, the second 2x2 block's biases; HALF, after a
 * 2x2 block's steps. */
#define MCU_CONV2D_S8_PW_ENTRY_REG
#define MCU_CONV2D_S8_PW_REWIND_REG(K)                                                                                 \
    "sub %[px], %[px], %[kc], lsl #2\n\t"                                                                              \
    "sub %[x1o], %[x1o], %[kc]\n\t"
#define MCU_CONV2D_S8_PW_PAIR_REG                                                                                      \
    "vmov %[a00], %[a01], s24, s25\n\t"                                                                                \
    "vmov s16, s17, %[a00], %[a01]\n"
#define MCU_CONV2D_S8_PW_BLOCK_REG                                                                                     \
    "vmov %[we], %[wv], s16, s17\n\t"                                                                                  \
    "ldrd %[a00], %[a10], [%[we]], #16\n\t"                                                                            \
    "vldr d6, [%[we], #-8]\n\t"                                                                                        \
    "vldmia %[wv]!, {s0-s3}\n\t"                                                                                       \
    "vmov s16, s17, %[we], %[wv]\n\t"                                                                                  \
    "mov %[a01], %[a00]\n\t"                                                                                           \
    "mov %[a11], %[a10]\n"
#define MCU_CONV2D_S8_PW_NEXT_REG                                                                                      \
    "vmov %[a00], %[a10], s12, s13\n\t"                                                                                \
    "mov %[a01], %[a00]\n\t"                                                                                           \
    "mov %[a11], %[a10]\n"
#define MCU_CONV2D_S8_PW_HALF_REG(K)                                                                                   \
    "sub %[px], %[px], %[kc], lsl #2\n\t"                                                                              \
    "add %[w0], %[w0], %[kc]\n\t"
#define MCU_CONV2D_S8_PW_ENTRY_IMM                                                                                     \
    "sub %[a01], %[a01], %[a00]\n\t"                                                                                   \
    "vmov s17, %[a01]\n\t"
#define MCU_CONV2D_S8_PW_REWIND_IMM(K) /* the widening moved nothing */
#define MCU_CONV2D_S8_PW_PAIR_IMM                                                                                      \
    "vmov %[kc], s24\n"
#define MCU_CONV2D_S8_PW_BLOCK_IMM                                                                                     \
    "vmov %[wv], s17\n\t"                                                                                              \
    "add %[wv], %[wv], %[kc]\n\t"                                                                                      \
    "ldrd %[a00], %[a10], [%[kc]], #8\n\t"                                                                             \
    "vldmia %[wv], {s0-s3}\n"
#define MCU_CONV2D_S8_PW_NEXT_IMM                                                                                      \
    "ldrd %[a00], %[a10], [%[kc]], #8\n"
#define MCU_CONV2D_S8_PW_HALF_IMM(K)                                                                                   \
    "add %[w0], %[w0], #2*" #K "\n\t"

/* Step N of a one-turn 2x2 block (k = K): MCU_CONV2D_S8_PW_STEP's loads at constant offsets from the columns (16
 * bytes a step) and the rows (w0, w0 + K; 4 bytes a step), none writing back, so all six pipeline. Pixel 1's sums
 * accumulate onto S01, S11: the step's own, or in step 0 pixel 0's (the biases, read before pixel 0's SMLAD). */
#define MCU_CONV2D_S8_PW_STEPI(N, K, S01, S11)                                                                         \
    "ldr %[x0o], [%[px], #" #N "*16+4]\n\t"                                                                            \
    "ldr %[x1e], [%[px], #" #N "*16+8]\n\t"                                                                            \
    "ldr %[x1o], [%[px], #" #N "*16+12]\n\t"                                                                           \
    "ldr %[wt], [%[w0], #" #K "+" #N "*4]\n\t"                                                                         \
    "ldr %[x0e], [%[px], #" #N "*16]\n\t"                                                                              \
    "ldr %[wv], [%[w0], #" #N "*4]\n\t"                                                                                \
    "sxtb16 %[we], %[wv]\n\t"                                                                                          \
    "smlad %[a01], %[x1e], %[we], %[" S01 "]\n\t"                                                                      \
    "smlad %[a00], %[x0e], %[we], %[a00]\n\t"                                                                          \
    "sxtb16 %[wv], %[wv], ror #8\n\t"                                                                                  \
    "smlad %[a00], %[x0o], %[wv], %[a00]\n\t"                                                                          \
    "smlad %[a01], %[x1o], %[wv], %[a01]\n\t"                                                                          \
    "sxtb16 %[we], %[wt]\n\t"                                                                                          \
    "smlad %[a11], %[x1e], %[we], %[" S11 "]\n\t"                                                                      \
    "smlad %[a10], %[x0e], %[we], %[a10]\n\t"                                                                          \
    "sxtb16 %[wt], %[wt], ror #8\n\t"                                                                                  \
    "smlad %[a10], %[x0o], %[wt], %[a10]\n\t"                                                                          \
    "smlad %[a11], %[x1o], %[wt], %[a11]\n\t"
#define MCU_CONV2D_S8_PW_STEPI_AT(N, K) MCU_CONV2D_S8_PW_STEPI(N, K, "a01", "a11")
#define MCU_CONV2D_S8_PW_STEPS8 MCU_CONV2D_S8_PW_STEPI(0, 8, "a00", "a10") MCU_CONV2D_S8_PW_STEPI_AT(1, 8)
#define MCU_CONV2D_S8_PW_STEPS16                                                                                       \
    MCU_CONV2D_S8_PW_STEPI(0, 16, "a00", "a10") MCU_CONV2D_S8_PW_STEPI_AT(1, 16)                                       \
    MCU_CONV2D_S8_PW_STEPI_AT(2, 16) MCU_CONV2D_S8_PW_STEPI_AT(3, 16)
#define MCU_CONV2D_S8_PW_STEPS32                                                                                       \
    MCU_CONV2D_S8_PW_STEPI(0, 32, "a00", "a10") MCU_CONV2D_S8_PW_STEPI_AT(1, 32)                                       \
    MCU_CONV2D_S8_PW_STEPI_AT(2, 32) MCU_CONV2D_S8_PW_STEPI_AT(3, 32) MCU_CONV2D_S8_PW_STEPI_AT(4, 32)                 \
    MCU_CONV2D_S8_PW_STEPI_AT(5, 32) MCU_CONV2D_S8_PW_STEPI_AT(6, 32) MCU_CONV2D_S8_PW_STEPI_AT(7, 32)

/* The pair's widening (pixel 0 at [x1o], pixel 1 [wt] bytes after it, into [px] on to the columns' end, s22), W
 * taps a turn: 4 (any k), or 8 (k % 8 == 0: pixel 1 through its own pointer [w0], four loads back to back); K8,
 * K16, K32: k = 8, 16, 32 without a loop, at constant offsets (MCU_CONV2D_S8_PW_WIDENI: taps 8N .. 8N + 7), nothing
 * moved. */
#define MCU_CONV2D_S8_PW_WIDEN4                                                                                        \
    "vmov %[we], s22\n"                                                                                                \
    "4:\n\t"                                                                                                           \
    "ldr %[x0o], [%[x1o], %[wt]]\n\t"                                                                                  \
    "ldr %[x0e], [%[x1o]], #4\n\t"                                                                                     \
    "sxtb16 %[x1e], %[x0e]\n\t"                                                                                        \
    "sxtb16 %[x0e], %[x0e], ror #8\n\t"                                                                                \
    "sxtb16 %[a00], %[x0o]\n\t"                                                                                        \
    "sxtb16 %[x0o], %[x0o], ror #8\n\t"                                                                                \
    "strd %[x1e], %[x0e], [%[px]], #16\n\t"                                                                            \
    "strd %[a00], %[x0o], [%[px], #-8]\n\t"                                                                            \
    "cmp %[px], %[we]\n\t"                                                                                             \
    "bne 4b\n\t"
#define MCU_CONV2D_S8_PW_WIDEN8                                                                                        \
    "vmov %[we], s22\n\t"                                                                                              \
    "add %[w0], %[x1o], %[wt]\n"                                                                                       \
    "4:\n\t"                                                                                                           \
    "ldr %[x0o], [%[x1o], #4]\n\t"                                                                                     \
    "ldr %[x1e], [%[w0], #4]\n\t"                                                                                      \
    "ldr %[x0e], [%[x1o]], #8\n\t"                                                                                     \
    "ldr %[wv], [%[w0]], #8\n\t"                                                                                       \
    "sxtb16 %[a00], %[x0e]\n\t"                                                                                        \
    "sxtb16 %[x0e], %[x0e], ror #8\n\t"                                                                                \
    "sxtb16 %[a01], %[wv]\n\t"                                                                                         \
    "sxtb16 %[wv], %[wv], ror #8\n\t"                                                                                  \
    "strd %[a00], %[x0e], [%[px]], #32\n\t"                                                                            \
    "strd %[a01], %[wv], [%[px], #-24]\n\t"                                                                            \
    "sxtb16 %[a10], %[x0o]\n\t"                                                                                        \
    "sxtb16 %[x0o], %[x0o], ror #8\n\t"                                                                                \
    "sxtb16 %[a11], %[x1e]\n\t"                                                                                        \
    "sxtb16 %[x1e], %[x1e], ror #8\n\t"                                                                                \
    "strd %[a10], %[x0o], [%[px], #-16]\n\t"                                                                           \
    "strd %[a11], %[x1e], [%[px], #-8]\n\t"                                                                            \
    "cmp %[px], %[we]\n\t"                                                                                             \
    "bne 4b\n\t"

#define MCU_CONV2D_S8_PW_WIDENI(N)                                                                                     \
    "ldr %[x0o], [%[x1o], #" #N "*8+4]\n\t"                                                                            \
    "ldr %[x1e], [%[w0], #" #N "*8+4]\n\t"                                                                             \
    "ldr %[x0e], [%[x1o], #" #N "*8]\n\t"                                                                              \
    "ldr %[wv], [%[w0], #" #N "*8]\n\t"                                                                                \
    "sxtb16 %[a00], %[x0e]\n\t"                                                                                        \
    "sxtb16 %[x0e], %[x0e], ror #8\n\t"                                                                                \
    "sxtb16 %[a01], %[wv]\n\t"                                                                                         \
    "sxtb16 %[wv], %[wv], ror #8\n\t"                                                                                  \
    "strd %[a00], %[x0e], [%[px], #" #N "*32]\n\t"                                                                     \
    "strd %[a01], %[wv], [%[px], #" #N "*32+8]\n\t"                                                                    \
    "sxtb16 %[a10], %[x0o]\n\t"                                                                                        \
    "sxtb16 %[x0o], %[x0o], ror #8\n\t"                                                                                \
    "sxtb16 %[a11], %[x1e]\n\t"                                                                                        \
    "sxtb16 %[x1e], %[x1e], ror #8\n\t"                                                                                \
    "strd %[a10], %[x0o], [%[px], #" #N "*32+16]\n\t"                                                                  \
    "strd %[a11], %[x1e], [%[px], #" #N "*32+24]\n\t"
#define MCU_CONV2D_S8_PW_WIDENK8 "add %[w0], %[x1o], %[wt]\n\t" MCU_CONV2D_S8_PW_WIDENI(0)
#define MCU_CONV2D_S8_PW_WIDENK16 MCU_CONV2D_S8_PW_WIDENK8 MCU_CONV2D_S8_PW_WIDENI(1)
#define MCU_CONV2D_S8_PW_WIDENK32                                                                                      \
    MCU_CONV2D_S8_PW_WIDENK16 MCU_CONV2D_S8_PW_WIDENI(2) MCU_CONV2D_S8_PW_WIDENI(3)

/* The sweep over the pixel pairs and, per pair, its channels four at a time; STEPS: the 4-tap steps of one loop turn,
 * LOOP(STEPS, L, M): a 2x2 block's step loop (ONCE, TURN or MID), V: the bookkeeping (REG or IMM, k = K), W: the
 * widening's taps a turn. Loop state in s12-s31 (a VMOV moves two core registers in the time of one LDR and nothing
 * goes through memory): per channel block the folded biases and scales of the next one (s16, s17; IMM: the biases'
 * in [kc], s17 the scales' offset from them), the second 2x2 block's biases (REG: s12, s13), its outputs in pixels
 * 0 and 1 (s18, s19), zp and pixel 0's end (s20, s21), the widened columns' end (s22); per pixel pair the pair's
 * first input and pixel 1's offset from it (s14, s15), the pairs left (s23), the biases' and scales' start (s24,
 * s25), the weights' start and c_out (s26, s27), the input step and c_out - c_out % 4 (s28, s29), the pair's output
 * and the output step (s30, s31).
 * Per pixel pair: both pixels widened to int16 lanes in the order the step loads them (per 4 taps: pixel 0's even
 * and odd lanes, then pixel 1's; SXTB16, STRD), all its reads before its first write. Per block of four channels:
 * two 2x2 blocks (channels 0, 1 then 2, 3; the biases start the accumulators, the step loop, the weights on by k
 * past the second row; the first block's sums parked in s8-s11), then the eight
 * values requantized as mcu_requant_plain_s8 does (VCVT, VMUL by the scale, VCVTR: round half to even, saturating;
 * QADD zp, SSAT #8) and each pixel's four bytes stored by one STR. */
#define MCU_CONV2D_S8_PW_SWEEP(STEPS, LOOP, V, K, W)                                                                   \
    "vmov s24, s25, %[a00], %[a01]\n\t" MCU_CONV2D_S8_PW_ENTRY_##V                                                     \
    "vmov s30, s31, %[a10], %[a11]\n\t"                                                                                \
    "vmov s26, s27, %[w0], %[x0o]\n\t"                                                                                 \
    "vmov s14, s15, %[x1o], %[wt]\n\t"                                                                                 \
    "vmov s28, s29, %[wv], %[we]\n\t"                                                                                  \
    "vmov s20, %[x0e]\n\t"                                                                                             \
    "vmov s23, %[x1e]\n\t"                                                                                             \
    "add %[we], %[px], %[kc], lsl #2\n\t"                                                                              \
    "vmov s22, %[we]\n\t" MCU_CONV2D_S8_ALIGN                                                                          \
    "3:\n\t"                                                                                                           \
    "vmov %[x1o], %[wt], s14, s15\n\t"                                                                                 \
    MCU_CONV2D_S8_PW_WIDEN##W                                                                                          \
    MCU_CONV2D_S8_PW_REWIND_##V(K)                                                                                     \
    "vmov %[a00], %[a01], s28, s29\n\t"                                                                                \
    "add %[x1o], %[x1o], %[a00]\n\t"                                                                                   \
    "vmov s14, %[x1o]\n\t"                                                                                             \
    "vmov %[a10], %[a11], s30, s31\n\t"                                                                                \
    "vmov %[w0], %[wt], s26, s27\n\t"                                                                                  \
    "add %[wt], %[a10], %[wt]\n\t"                                                                                     \
    "add %[a01], %[a10], %[a01]\n\t"                                                                                   \
    "vmov s18, s19, %[a10], %[wt]\n\t"                                                                                 \
    "vmov s21, %[a01]\n\t"                                                                                             \
    "add %[a10], %[a10], %[a11]\n\t"                                                                                   \
    "vmov s30, %[a10]\n\t"                                                                                             \
    MCU_CONV2D_S8_PW_PAIR_##V "2:\n\t" MCU_CONV2D_S8_PW_BLOCK_##V                                                      \
    LOOP(STEPS, "1", "7") MCU_CONV2D_S8_PW_HALF_##V(K)                                                              \
    "vmov s8, s9, %[a00], %[a01]\n\t"                                                                                  \
    "vmov s10, s11, %[a10], %[a11]\n\t"                                                                                \
    MCU_CONV2D_S8_PW_NEXT_##V LOOP(STEPS, "5", "8") MCU_CONV2D_S8_PW_HALF_##V(K)                                    \
    "vmov s4, s5, %[a00], %[a01]\n\t"                                                                                  \
    "vmov s6, s7, %[a10], %[a11]\n\t"                                                                                  \
    "vcvt.f32.s32 s8, s8\n\t"                                                                                          \
    "vcvt.f32.s32 s9, s9\n\t"                                                                                          \
    "vcvt.f32.s32 s10, s10\n\t"                                                                                        \
    "vcvt.f32.s32 s11, s11\n\t"                                                                                        \
    "vcvt.f32.s32 s4, s4\n\t"                                                                                          \
    "vcvt.f32.s32 s5, s5\n\t"                                                                                          \
    "vcvt.f32.s32 s6, s6\n\t"                                                                                          \
    "vcvt.f32.s32 s7, s7\n\t"                                                                                          \
    "vmul.f32 s8, s8, s0\n\t"                                                                                          \
    "vmul.f32 s9, s9, s0\n\t"                                                                                          \
    "vmul.f32 s10, s10, s1\n\t"                                                                                        \
    "vmul.f32 s11, s11, s1\n\t"                                                                                        \
    "vmul.f32 s4, s4, s2\n\t"                                                                                          \
    "vmul.f32 s5, s5, s2\n\t"                                                                                          \
    "vmul.f32 s6, s6, s3\n\t"                                                                                          \
    "vmul.f32 s7, s7, s3\n\t"                                                                                          \
    "vcvtr.s32.f32 s8, s8\n\t"                                                                                         \
    "vcvtr.s32.f32 s9, s9\n\t"                                                                                         \
    "vcvtr.s32.f32 s10, s10\n\t"                                                                                       \
    "vcvtr.s32.f32 s11, s11\n\t"                                                                                       \
    "vcvtr.s32.f32 s4, s4\n\t"                                                                                         \
    "vcvtr.s32.f32 s5, s5\n\t"                                                                                         \
    "vcvtr.s32.f32 s6, s6\n\t"                                                                                         \
    "vcvtr.s32.f32 s7, s7\n\t"                                                                                         \
    "vmov %[x0e], %[x0o], s20, s21\n\t"                                                                                \
    "vmov %[a00], %[a01], s8, s9\n\t"                                                                                  \
    "vmov %[a10], %[a11], s10, s11\n\t" MCU_CONV2D_S8_PW_SAT("a00", "a01") MCU_CONV2D_S8_PW_SAT("a10", "a11")      \
    "bfi %[a00], %[a10], #8, #8\n\t"                                                                                   \
    "bfi %[a01], %[a11], #8, #8\n\t"                                                                                   \
    "vmov %[a10], %[a11], s4, s5\n\t" MCU_CONV2D_S8_PW_SAT("a10", "a11")                                           \
    "bfi %[a00], %[a10], #16, #8\n\t"                                                                                  \
    "bfi %[a01], %[a11], #16, #8\n\t"                                                                                  \
    "vmov %[a10], %[a11], s6, s7\n\t" MCU_CONV2D_S8_PW_SAT("a10", "a11")                                           \
    "bfi %[a00], %[a10], #24, #8\n\t"                                                                                  \
    "bfi %[a01], %[a11], #24, #8\n\t"                                                                                  \
    "vmov %[we], %[wv], s18, s19\n\t"                                                                                  \
    "str %[a00], [%[we]], #4\n\t"                                                                                      \
    "str %[a01], [%[wv]], #4\n\t"                                                                                      \
    "vmov s18, s19, %[we], %[wv]\n\t"                                                                                  \
    "cmp %[we], %[x0o]\n\t"                                                                                            \
    "bne 2b\n\t"                                                                                                       \
    "vmov %[we], s23\n\t"                                                                                              \
    "subs %[we], %[we], #1\n\t"                                                                                        \
    "vmov s23, %[we]\n\t"                                                                                              \
    "bne 3b\n\t"

/** Output channels 0 .. c_out - c_out % 4 - 1 of `pairs` pixel pairs, in mode MCU_CONV2D_S8_RQ_S8 with per-channel
 * scales, w_zp NULL, k % 4 == 0, k <= MCU_CONV2D_S8_PW_TAPS: pair i reads its pixels at c0 + i * cstep and
 * c0 + i * cstep + off (k bytes each) and writes y0 + i * ystep and that + c_out; xq: 4k bytes for the widened pair.
 * One assembly loop (MCU_CONV2D_S8_PW_SWEEP): k = 8, 16 and 32 in one turn without a loop at constant offsets (the
 * narrow layers, where the bookkeeping weighs most), other k % 32 == 0 64 taps a turn (MID), else 4 a turn;
 * mcucomp/ops/conv2d_s8.py sweep_variant names them. */
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_pw_sweep(const mcu_conv2d_s8_params *p, int32_t *xq, const int8_t *c0,
                                                         ptrdiff_t off, ptrdiff_t cstep, int32_t pairs, int8_t *y0,
                                                         ptrdiff_t ystep)
{
    /* the loop state enters in the registers the loop then takes (all fourteen) */
    int32_t a00 = (int32_t)(uintptr_t)p->kbias, a01 = (int32_t)(uintptr_t)p->rq.scale;
    int32_t a10 = (int32_t)(uintptr_t)y0, a11 = (int32_t)ystep, x0e = p->rq.zp, x0o = p->g.c_out, x1e = pairs;
    int32_t x1o = (int32_t)(uintptr_t)c0, wv = (int32_t)cstep, wt = (int32_t)off, we = p->g.c_out & ~3;
    int32_t *px = xq;
    const int8_t *w0 = p->w;
    int32_t kc = p->g.c_in;
#define MCU_CONV2D_S8_PW_OPERANDS                                                                                     \
    : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [x0e] "+r"(x0e), [x0o] "+r"(x0o),           \
      [x1e] "+r"(x1e), [x1o] "+r"(x1o), [wv] "+r"(wv), [wt] "+r"(wt), [we] "+r"(we), [px] "+r"(px), [w0] "+r"(w0),     \
      [kc] "+r"(kc)                                                                                                    \
    :                                                                                                                  \
    : "cc", "memory", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", "s14", \
      "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30",  \
      "s31"
    if (kc == 32) {
        __asm__ volatile(MCU_CONV2D_S8_PW_SWEEP(MCU_CONV2D_S8_PW_STEPS32, MCU_CONV2D_S8_PW_ONCE, IMM, 32, K32)
                             MCU_CONV2D_S8_PW_OPERANDS);
    } else if (kc % 32 == 0) {
        __asm__ volatile(MCU_CONV2D_S8_PW_SWEEP(MCU_CONV2D_S8_PW_STEP8, MCU_CONV2D_S8_PW_MID, REG, 0, 8)
                             MCU_CONV2D_S8_PW_OPERANDS);
    } else if (kc == 16) {
        __asm__ volatile(MCU_CONV2D_S8_PW_SWEEP(MCU_CONV2D_S8_PW_STEPS16, MCU_CONV2D_S8_PW_ONCE, IMM, 16, K16)
                             MCU_CONV2D_S8_PW_OPERANDS);
    } else if (kc == 8) {
        __asm__ volatile(MCU_CONV2D_S8_PW_SWEEP(MCU_CONV2D_S8_PW_STEPS8, MCU_CONV2D_S8_PW_ONCE, IMM, 8, K8)
                             MCU_CONV2D_S8_PW_OPERANDS);
    } else {
        __asm__ volatile(MCU_CONV2D_S8_PW_SWEEP(MCU_CONV2D_S8_PW_STEP, MCU_CONV2D_S8_PW_TURN, REG, 0, 4)
                             MCU_CONV2D_S8_PW_OPERANDS);
    }
#undef MCU_CONV2D_S8_PW_OPERANDS
}

/** Pixel pair (c0, c1)'s k taps (k % 4 == 0) as int16 lanes in the order of MCU_CONV2D_S8_PW_SWEEP's widening. */
static void mcu_conv2d_s8_pw_widen(const int8_t *c0, const int8_t *c1, int32_t k, int32_t *xq)
{
    int32_t i;
    for (i = 0; i < k; i += 4, xq += 4) {
        const int32_t v0 = mcu_conv2d_s8_load4(c0 + i), v1 = mcu_conv2d_s8_load4(c1 + i);
        xq[0] = __sxtb16(v0);
        xq[1] = mcu_conv2d_s8_odd(v0);
        xq[2] = __sxtb16(v1);
        xq[3] = mcu_conv2d_s8_odd(v1);
    }
}

/* One 4-tap step of the one-pixel sweep: the pixel's widened lanes (pixel 0's of mcu_conv2d_s8_pw_widen, 16 bytes
 * a step) against four weight rows at w0, w0 + k, w0 + 2k (k in [kc]) and w3 = w0 + 3k: five loads back to back,
 * the fourth row's word once the first row's is used (its register), eight SXTB16, eight SMLAD. */
#define MCU_CONV2D_S8_PW1_STEP                                                                                        \
    "ldr %[xo], [%[px], #4]\n\t"                                                                                       \
    "ldr %[wb], [%[w0], %[kc]]\n\t"                                                                                    \
    "ldr %[wc], [%[w0], %[kc], lsl #1]\n\t"                                                                            \
    "ldr %[xe], [%[px]], #16\n\t"                                                                                      \
    "ldr %[wa], [%[w0]], #4\n\t"                                                                                       \
    "sxtb16 %[we], %[wa]\n\t"                                                                                          \
    "smlad %[a0], %[xe], %[we], %[a0]\n\t"                                                                             \
    "sxtb16 %[wa], %[wa], ror #8\n\t"                                                                                  \
    "smlad %[a0], %[xo], %[wa], %[a0]\n\t"                                                                             \
    "ldr %[wa], [%[w3]], #4\n\t"                                                                                       \
    "sxtb16 %[we], %[wb]\n\t"                                                                                          \
    "smlad %[a1], %[xe], %[we], %[a1]\n\t"                                                                             \
    "sxtb16 %[wb], %[wb], ror #8\n\t"                                                                                  \
    "smlad %[a1], %[xo], %[wb], %[a1]\n\t"                                                                             \
    "sxtb16 %[we], %[wc]\n\t"                                                                                          \
    "smlad %[a2], %[xe], %[we], %[a2]\n\t"                                                                             \
    "sxtb16 %[wc], %[wc], ror #8\n\t"                                                                                  \
    "smlad %[a2], %[xo], %[wc], %[a2]\n\t"                                                                             \
    "sxtb16 %[we], %[wa]\n\t"                                                                                          \
    "smlad %[a3], %[xe], %[we], %[a3]\n\t"                                                                             \
    "sxtb16 %[wa], %[wa], ror #8\n\t"                                                                                  \
    "smlad %[a3], %[xo], %[wa], %[a3]\n\t"
#define MCU_CONV2D_S8_PW1_STEP2 MCU_CONV2D_S8_PW1_STEP MCU_CONV2D_S8_PW1_STEP
#define MCU_CONV2D_S8_PW1_STEP4 MCU_CONV2D_S8_PW1_STEP2 MCU_CONV2D_S8_PW1_STEP2
#define MCU_CONV2D_S8_PW1_STEP8 MCU_CONV2D_S8_PW1_STEP4 MCU_CONV2D_S8_PW1_STEP4
#define MCU_CONV2D_S8_PW1_STEP16 MCU_CONV2D_S8_PW1_STEP8 MCU_CONV2D_S8_PW1_STEP8

/* The one-pixel sweep over blocks of four channels, STEPS a loop turn (as MCU_CONV2D_S8_PW_SWEEP). State: the folded
 * biases and scales of the next block (s16, s17), its output (s18), zp and the output's end (s20, s21), the widened
 * lanes' end (s22). Per block: four biases by two LDRD, four scales by one VLDM, the step loop, the lanes back by 4k,
 * the rows on by 3k (w0 to where w3 ended), the four outputs requantized as in MCU_CONV2D_S8_PW_SWEEP into one STR. */
#define MCU_CONV2D_S8_PW1_SWEEP(STEPS)                                                                                \
    "vmov s16, s17, %[a0], %[a1]\n\t"                                                                                  \
    "vmov s18, %[a2]\n\t"                                                                                              \
    "vmov s20, s21, %[a3], %[xe]\n\t"                                                                                  \
    "vmov s22, %[xo]\n"                                                                                                \
    MCU_CONV2D_S8_ALIGN "2:\n\t"                                                                                       \
    "vmov %[we], %[wa], s16, s17\n\t"                                                                                  \
    "ldrd %[a2], %[a3], [%[we], #8]\n\t"                                                                               \
    "ldrd %[a0], %[a1], [%[we]], #16\n\t"                                                                              \
    "vldmia %[wa]!, {s12-s15}\n\t"                                                                                     \
    "vmov s16, s17, %[we], %[wa]\n"                                                                                    \
    "1:\n\t" STEPS                                                                                                     \
    "vmov %[we], s22\n\t"                                                                                              \
    "cmp %[px], %[we]\n\t"                                                                                             \
    "bne 1b\n\t"                                                                                                       \
    "sub %[px], %[px], %[kc], lsl #2\n\t"                                                                              \
    "mov %[w0], %[w3]\n\t"                                                                                             \
    "add %[w3], %[w3], %[kc], lsl #1\n\t"                                                                              \
    "add %[w3], %[w3], %[kc]\n\t"                                                                                      \
    "vmov s8, s9, %[a0], %[a1]\n\t"                                                                                    \
    "vmov s10, s11, %[a2], %[a3]\n\t"                                                                                  \
    "vcvt.f32.s32 s8, s8\n\t"                                                                                          \
    "vcvt.f32.s32 s9, s9\n\t"                                                                                          \
    "vcvt.f32.s32 s10, s10\n\t"                                                                                        \
    "vcvt.f32.s32 s11, s11\n\t"                                                                                        \
    "vmul.f32 s8, s8, s12\n\t"                                                                                         \
    "vmul.f32 s9, s9, s13\n\t"                                                                                         \
    "vmul.f32 s10, s10, s14\n\t"                                                                                       \
    "vmul.f32 s11, s11, s15\n\t"                                                                                       \
    "vcvtr.s32.f32 s8, s8\n\t"                                                                                         \
    "vcvtr.s32.f32 s9, s9\n\t"                                                                                         \
    "vcvtr.s32.f32 s10, s10\n\t"                                                                                       \
    "vcvtr.s32.f32 s11, s11\n\t"                                                                                       \
    "vmov %[a0], %[a1], s8, s9\n\t"                                                                                    \
    "vmov %[a2], %[a3], s10, s11\n\t"                                                                                  \
    "vmov %[wb], %[wc], s20, s21\n\t"                                                                                  \
    "vmov %[we], s18\n\t"                                                                                              \
    "qadd %[a0], %[a0], %[wb]\n\t"                                                                                     \
    "qadd %[a1], %[a1], %[wb]\n\t"                                                                                     \
    "qadd %[a2], %[a2], %[wb]\n\t"                                                                                     \
    "qadd %[a3], %[a3], %[wb]\n\t"                                                                                     \
    "ssat %[a0], #8, %[a0]\n\t"                                                                                        \
    "ssat %[a1], #8, %[a1]\n\t"                                                                                        \
    "ssat %[a2], #8, %[a2]\n\t"                                                                                        \
    "ssat %[a3], #8, %[a3]\n\t"                                                                                        \
    "bfi %[a0], %[a1], #8, #8\n\t"                                                                                     \
    "bfi %[a0], %[a2], #16, #8\n\t"                                                                                    \
    "bfi %[a0], %[a3], #24, #8\n\t"                                                                                    \
    "str %[a0], [%[we]], #4\n\t"                                                                                       \
    "vmov s18, %[we]\n\t"                                                                                              \
    "cmp %[we], %[wc]\n\t"                                                                                             \
    "bne 2b\n\t"

/** Output channels 0 .. 4 * quads - 1 of one pixel whose k taps (k % 4 == 0) mcu_conv2d_s8_pw_widen put in xq (as
 * pixel 0), to y, in the mode of mcu_conv2d_s8_pw_sweep: a matrix-vector loop, four weight rows against the pixel
 * (MCU_CONV2D_S8_PW1_SWEEP; the 2x2 block would compute it twice), 64 or 32 taps a turn when k allows, else 4. */
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_pw_sweep1(const mcu_conv2d_s8_params *p, const int32_t *xq, int32_t k,
                                                          int32_t quads, int8_t *y)
{
    /* the loop state enters in the registers the loop then takes (all fourteen) */
    int32_t a0 = (int32_t)(uintptr_t)p->kbias, a1 = (int32_t)(uintptr_t)p->rq.scale, a2 = (int32_t)(uintptr_t)y;
    int32_t a3 = p->rq.zp, xe = (int32_t)(uintptr_t)(y + 4 * quads), xo = (int32_t)(uintptr_t)(xq + k);
    int32_t wa, wb, wc, we, kc = k;
    const int32_t *px = xq;
    const int8_t *w0 = p->w, *w3 = p->w + 3 * (size_t)k;
#define MCU_CONV2D_S8_PW1_OPERANDS                                                                                    \
    : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [xe] "+r"(xe), [xo] "+r"(xo), [wa] "=&r"(wa),       \
      [wb] "=&r"(wb), [wc] "=&r"(wc), [we] "=&r"(we), [px] "+r"(px), [w0] "+r"(w0), [w3] "+r"(w3), [kc] "+r"(kc)       \
    :                                                                                                                  \
    : "cc", "memory", "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15", "s16", "s17", "s18", "s20", "s21", "s22"
    if (k % 64 == 0) {
        __asm__ volatile(MCU_CONV2D_S8_PW1_SWEEP(MCU_CONV2D_S8_PW1_STEP16) MCU_CONV2D_S8_PW1_OPERANDS);
    } else if (k % 32 == 0) {
        __asm__ volatile(MCU_CONV2D_S8_PW1_SWEEP(MCU_CONV2D_S8_PW1_STEP8) MCU_CONV2D_S8_PW1_OPERANDS);
    } else {
        __asm__ volatile(MCU_CONV2D_S8_PW1_SWEEP(MCU_CONV2D_S8_PW1_STEP) MCU_CONV2D_S8_PW1_OPERANDS);
    }
#undef MCU_CONV2D_S8_PW1_OPERANDS
}
#else
#define MCU_CONV2D_S8_BLOCKS_ASM 0
#endif

/* mcu_conv2d_s8_gemm_body compiled for one run of k taps per column (im2col, local, pointwise) and over `rows` runs
 * (the direct path's windows inside the input), each for seg % 16 == 0 (the assembly loop only) and any seg: the
 * loop over runs and the steps after the loop cost registers around the block. */
#if MCU_CONV2D_S8_DSP_ASM
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_gemm_k16(const mcu_conv2d_s8_params *p, int32_t mode,
                                                          const int8_t *c0, const int8_t *c1, int32_t k, int32_t first,
                                                          int8_t *y0, int8_t *y1)
{
    mcu_conv2d_s8_gemm_body(p, mode, c0, c1, 1, k, 0, 1, first, y0, y1);
}

#endif

static void mcu_conv2d_s8_gemm_any(const mcu_conv2d_s8_params *p, int32_t mode, const int8_t *c0, const int8_t *c1,
                                   int32_t k, int32_t first, int8_t *y0, int8_t *y1)
{
    if (mode == MCU_CONV2D_S8_RQ_S8) { /* the first convs' mode compiled on its own: no mode tests per block */
        mcu_conv2d_s8_gemm_body(p, MCU_CONV2D_S8_RQ_S8, c0, c1, 1, k, 0, 0, first, y0, y1);
        return;
    }
    mcu_conv2d_s8_gemm_body(p, mode, c0, c1, 1, k, 0, 0, first, y0, y1);
}

#if MCU_CONV2D_S8_DSP_ASM
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_gemm_rows_k16(const mcu_conv2d_s8_params *p, int32_t mode, const int8_t *c0,
                                        const int8_t *c1, int32_t rows, int32_t seg, size_t rs, int8_t *y0, int8_t *y1)
{
    mcu_conv2d_s8_gemm_body(p, mode, c0, c1, rows, seg, rs, 1, 0, y0, y1);
}

#endif

static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_gemm_rows_any(const mcu_conv2d_s8_params *p, int32_t mode, const int8_t *c0,
                                        const int8_t *c1, int32_t rows, int32_t seg, size_t rs, int8_t *y0, int8_t *y1)
{
    mcu_conv2d_s8_gemm_body(p, mode, c0, c1, rows, seg, rs, 0, 0, y0, y1);
}

/* Declares rqt, the GEMM's requantization table for the call (pairs: its pixel pairs; store: the storage
 * mcu_conv2d_s8_gemm_paths provides, NULL off ARMv6-M): mcu_conv2d_s8_rq_table's result, elsewhere NULL. */
#if defined(MCU_CONV2D_S8_GEMM_V6M)
#define MCU_CONV2D_S8_RQT(p, pairs, store, rqt) const int32_t *rqt = mcu_conv2d_s8_rq_table(p, pairs, store)
#else
#define MCU_CONV2D_S8_RQT(p, pairs, store, rqt)                                                                    \
    const int32_t *rqt = NULL;                                                                                     \
    (void)(store)
#endif

/** The GEMM over one run of k taps per column: on DSP cores with an FPU, the full-int8-range float mode with
 * per-channel scales and no w_zp through the block loop in assembly (mcu_conv2d_s8_blocks_s8) where k allows. */
static void mcu_conv2d_s8_gemm(const mcu_conv2d_s8_params *p, int32_t mode, const int8_t *c0, const int8_t *c1,
                               int32_t k, int8_t *y0, int8_t *y1, const int32_t *rqt)
{
    int32_t first = 0;
#if defined(MCU_CONV2D_S8_GEMM_V6M)
    const mcu_requant rq = p->rq; /* the assembly reads it; a copy, as for the C block */
    if (p->w_zp == NULL && rq.mult != NULL && !rq.single_round && rq.qmin <= rq.zp && rq.zp <= rq.qmax) {
        const mcu_conv2d_s8_gemm_v6m_args a = {c0, c1, k, p->w, p->kbias, p->g.c_out, y0, y1, &rq, rqt};
        const int32_t lone = c0 == c1 && y0 == y1;
        if (rqt != NULL) {
            (lone ? mcu_conv2d_s8_gemm1_t_v6m : mcu_conv2d_s8_gemm_t_v6m)(&a);
        } else {
            (lone ? mcu_conv2d_s8_gemm1_v6m : mcu_conv2d_s8_gemm_v6m)(&a);
        }
        return;
    }
#else
    (void)rqt;
#endif
#if MCU_CONV2D_S8_BLOCKS_ASM
    if (mode == MCU_CONV2D_S8_RQ_S8 && p->w_zp == NULL && p->rq.per_channel &&
        (k % 16 == 0 || (k % 4 == 0 && c1 == c0 + k))) {
        first = p->g.c_out & ~1;
        if (first > 0) {
            mcu_conv2d_s8_blocks_s8(p, c0, c1, k, first / 2, y0, y1);
        }
        if (first == p->g.c_out) {
            return;
        }
    }
#endif
#if MCU_CONV2D_S8_DSP_ASM
    if (k % 16 == 0) {
        mcu_conv2d_s8_gemm_k16(p, mode, c0, c1, k, first, y0, y1); /* first: the lone last channel left */
        return;
    }
#endif
    mcu_conv2d_s8_gemm_any(p, mode, c0, c1, k, first, y0, y1);
}

/** The GEMM over `rows` runs of seg taps per column, run r at r * rs. */
static void mcu_conv2d_s8_gemm_rows(const mcu_conv2d_s8_params *p, int32_t mode, const int8_t *c0,
                                    const int8_t *c1, int32_t rows, int32_t seg, size_t rs, int8_t *y0, int8_t *y1)
{
#if MCU_CONV2D_S8_DSP_ASM
    if (seg % 16 == 0) {
        mcu_conv2d_s8_gemm_rows_k16(p, mode, c0, c1, rows, seg, rs, y0, y1);
        return;
    }
#endif
    mcu_conv2d_s8_gemm_rows_any(p, mode, c0, c1, rows, seg, rs, y0, y1);
}

/** Index of output pixel q's first input pixel (n, oy * stride_h - pad_t, ox * stride_w - pad_l), row-major over
 * N, H, W; may lie in the padding. Sets *oy and *ox. */
static int32_t mcu_conv2d_s8_window_start(const mcu_conv_geom *g, int32_t q, int32_t *iy, int32_t *ix)
{
    const int32_t plane = g->h_out * g->w_out, n = q / plane, r = q % plane;
    *iy = (r / g->w_out) * g->stride_h - g->pad_t;
    *ix = (r % g->w_out) * g->stride_w - g->pad_l;
    return (n * g->h_in + *iy) * g->w_in + *ix;
}

/* The output row of the last pixel mcu_conv2d_s8_window_row looked up: its first pixel q and window start (iy,
 * start of ox = 0); q = -1 before the first. */
typedef struct {
    int32_t q, iy, start;
} mcu_conv2d_s8_row;

/** mcu_conv2d_s8_window_start; on cores without a divide instruction (where a division is a library call) the
 * divisions only when q leaves the row cached in *row. */
static int32_t mcu_conv2d_s8_window_row(const mcu_conv_geom *g, mcu_conv2d_s8_row *row, int32_t q, int32_t *iy,
                                        int32_t *ix)
{
#if defined(__ARM_FEATURE_IDIV) || !defined(__arm__) /* a divide instruction: the lookup costs more than it saves */
    (void)row;
    return mcu_conv2d_s8_window_start(g, q, iy, ix);
#else
    int32_t ox = q - row->q;
    if (row->q < 0 || ox < 0 || ox >= g->w_out) {
        row->q = q - q % g->w_out;
        row->start = mcu_conv2d_s8_window_start(g, row->q, &row->iy, ix);
        ox = q - row->q;
    }
    *iy = row->iy;
    *ix = ox * g->stride_w - g->pad_l;
    return row->start + ox * g->stride_w;
#endif
}

/* Pixel pair number i of `pixels` in run order: (0, 1), (2, 3), .. up or (P-2, P-1), (P-4, P-3), .. down; a lone
 * last pair has q0 == q1 (mcucomp/ops/_overlap.py pixel_pairs). */
static void mcu_conv2d_s8_pair(int32_t i, int32_t pixels, int32_t down, int32_t *q0, int32_t *q1)
{
    const int32_t a = 2 * i, b = a + 1 < pixels ? a + 1 : a;
    *q0 = down ? pixels - 1 - b : a;
    *q1 = down ? pixels - 1 - a : b;
}

#if MCU_CONV2D_S8_BLOCKS_ASM
/* Taps up to which the pointwise path widens a pixel pair's columns on the stack (4 bytes per tap). */
#define MCU_CONV2D_S8_PW_TAPS 256

/* The pointwise path through the sweeps (mode MCU_CONV2D_S8_RQ_S8, per-channel scales, no w_zp, c_in % 4 == 0,
 * c_in <= MCU_CONV2D_S8_PW_TAPS, c_out >= 4; mcucomp/ops/conv2d_s8.py pointwise_swept): pixel pairs in the order
 * p->down says, each widened once (all its reads done before its first write), then swept four channels at a time
 * (mcu_conv2d_s8_pw_sweep; one call for all pairs when stride 1 puts pixel q's inputs at q * c_in and c_out % 4 == 0);
 * a lone pixel by the one-pixel sweep (mcu_conv2d_s8_pw_sweep1); the c_out % 4 channels left through the GEMM block
 * after each pixel pair, which re-reads its inputs in place (mcucomp/ops/_overlap.py pointwise_nhwc: the pair's own
 * inputs stay unwritten). */
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_pointwise_widened(const mcu_conv2d_s8_params *p, int32_t mode,
                                                                  const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t c_in = g->c_in, c_out = g->c_out, pixels = g->n * g->h_out * g->w_out, pairs = pixels / 2;
    const int32_t unit = g->stride_h == 1 && g->stride_w == 1, quads = c_out & ~3, step = p->down ? -2 : 2;
    const int32_t first = p->down ? pixels - 2 : 0; /* the first pair (q, q + 1) (mcu_conv2d_s8_pair) */
    int32_t xq[MCU_CONV2D_S8_PW_TAPS];
    int32_t q, iy, ix;
    if (unit && quads == c_out && pairs > 0) { /* every pair in one sweep: pixel q's inputs at q * c_in */
        mcu_conv2d_s8_pw_sweep(p, xq, x + (ptrdiff_t)first * c_in, c_in, (ptrdiff_t)step * c_in, pairs,
                               y + (ptrdiff_t)first * c_out, (ptrdiff_t)step * c_out);
    } else {
        for (q = first; q >= 0 && q + 1 < pixels; q += step) { /* one sweep a pair, c_out % 4 after it */
            const int8_t *c0 = x + (size_t)mcu_conv2d_s8_window_start(g, q, &iy, &ix) * c_in;
            const int8_t *c1 = x + (size_t)mcu_conv2d_s8_window_start(g, q + 1, &iy, &ix) * c_in;
            int8_t *y0 = y + (size_t)q * c_out;
            mcu_conv2d_s8_pw_sweep(p, xq, c0, c1 - c0, 0, 1, y0, 0);
            if (quads != c_out) {
                mcu_conv2d_s8_gemm_any(p, mode, c0, c1, c_in, quads, y0, y0 + c_out);
            }
        }
    }
    if (pixels % 2 != 0) { /* the lone pixel: four channels a block, the rest through the GEMM block */
        const int8_t *c0;
        int8_t *y0;
        q = p->down ? 0 : pixels - 1;
        c0 = x + (size_t)mcu_conv2d_s8_window_start(g, q, &iy, &ix) * c_in;
        y0 = y + (size_t)q * c_out;
        mcu_conv2d_s8_pw_widen(c0, c0, c_in, xq);
        mcu_conv2d_s8_pw_sweep1(p, xq, c_in, c_out / 4, y0);
        if (quads != c_out) {
            mcu_conv2d_s8_gemm_any(p, mode, c0, c0, c_in, quads, y0, y0);
        }
    }
}
#endif

/* Pointwise path: the GEMM reads each pixel's c_in inputs in place (contiguous channels-last), pixel pairs in the
 * order p->down says (mcucomp/ops/_overlap.py pointwise_nhwc). */
static void mcu_conv2d_s8_pointwise(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, int32_t *rqt_store)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t c_in = g->c_in, c_out = g->c_out, pixels = g->n * g->h_out * g->w_out;
    const int32_t mode = mcu_conv2d_s8_rq_mode(p);
    const int32_t unit = g->stride_h == 1 && g->stride_w == 1; /* (unpadded) pixel q reads input pixel q */
    int32_t i, q0, q1, iy, ix;
#if MCU_CONV2D_S8_BLOCKS_ASM
    if (mode == MCU_CONV2D_S8_RQ_S8 && p->w_zp == NULL && p->rq.per_channel && c_in % 4 == 0 &&
        c_in <= MCU_CONV2D_S8_PW_TAPS && c_out >= 4) {
        mcu_conv2d_s8_pointwise_widened(p, mode, x, y);
        return;
    }
#endif
    MCU_CONV2D_S8_RQT(p, (pixels + 1) / 2, rqt_store, rqt);
    for (i = 0; 2 * i < pixels; ++i) {
        mcu_conv2d_s8_pair(i, pixels, p->down, &q0, &q1);
        /* the divisions of window_start are library calls on cores without a divider */
        mcu_conv2d_s8_gemm(p, mode, x + (size_t)(unit ? q0 : mcu_conv2d_s8_window_start(g, q0, &iy, &ix)) * c_in,
                           x + (size_t)(unit ? q1 : mcu_conv2d_s8_window_start(g, q1, &iy, &ix)) * c_in, c_in,
                           y + (size_t)q0 * c_out, y + (size_t)q1 * c_out, rqt);
    }
}

/** Copy n bytes of a window: runs under 16 bytes (first convs over a few channels) inline, word by word on DSP
 * cores (LDR and STR at any alignment), the others by memcpy (a call costs more than such a run). */
static MCU_INLINE void mcu_conv2d_s8_copy(int8_t *dst, const int8_t *src, size_t n)
{
    if (n >= 16) {
        memcpy(dst, src, n);
        return;
    }
#if defined(__ARM_FEATURE_DSP)
    for (; n >= 4; n -= 4, dst += 4, src += 4) {
        uint32_t v;
        memcpy(&v, src, 4);
        memcpy(dst, &v, 4);
    }
#endif
    for (; n > 0; --n) {
        *dst++ = *src++;
    }
}

/** Fill n bytes of a window with v (mcu_conv2d_s8_copy's split). */
static MCU_INLINE void mcu_conv2d_s8_fill(int8_t *dst, int32_t v, size_t n)
{
    if (n >= 16) {
        memset(dst, (int8_t)v, n);
        return;
    }
    for (; n > 0; --n) {
        *dst++ = (int8_t)v;
    }
}

/* Output pixel q's window in kernel-row, kernel-column, channel order (k_h * k_w * c_in bytes), x_zp in the
 * padding; whole kernel rows in one copy when they are inside the input and undilated. */
static void mcu_conv2d_s8_gather(const mcu_conv2d_s8_params *p, const int8_t *x, mcu_conv2d_s8_row *row, int32_t q,
                                 int8_t *col)
{
    const mcu_conv_geom *g = &p->g;
    const size_t c = (size_t)g->c_in;
    int32_t iy0, ix0, ky, kx;
    const int32_t start = mcu_conv2d_s8_window_row(g, row, q, &iy0, &ix0);
    const int8_t *xw = x + (size_t)(start - iy0 * g->w_in - ix0) * c; /* the image */
    const int32_t row_inside = ix0 >= 0 && ix0 + (g->k_w - 1) * g->dil_w < g->w_in;
    if (row_inside && g->dil_w == 1 && iy0 >= 0 && iy0 + (g->k_h - 1) * g->dil_h < g->h_in) {
        /* inside the input: one run per kernel row, no checks */
        const size_t run = (size_t)g->k_w * c, step = (size_t)g->dil_h * g->w_in * c;
        const int32_t rows = g->k_h;
        const int8_t *xr = xw + ((size_t)iy0 * g->w_in + ix0) * c;
        for (ky = 0; ky < rows; ++ky, col += run, xr += step) {
            mcu_conv2d_s8_copy(col, xr, run);
        }
        return;
    }
    /* undilated: the kernel columns lo .. hi - 1 lie inside the input, one run a kernel row */
    const int32_t lo = ix0 >= 0 ? 0 : -ix0 < g->k_w ? -ix0 : g->k_w;
    const int32_t right = g->w_in - ix0 < g->k_w ? g->w_in - ix0 : g->k_w, hi = right > lo ? right : lo;
    for (ky = 0; ky < g->k_h; ++ky, col += g->k_w * c) {
        const int32_t iy = iy0 + ky * g->dil_h;
        const int8_t *xr = xw + ((size_t)iy * g->w_in + ix0) * c;
        if (iy < 0 || iy >= g->h_in) {
            mcu_conv2d_s8_fill(col, p->x_zp, g->k_w * c);
        } else if (g->dil_w == 1) {
            mcu_conv2d_s8_fill(col, p->x_zp, (size_t)lo * c);
            mcu_conv2d_s8_copy(col + lo * c, xr + (size_t)lo * c, (size_t)(hi - lo) * c);
            mcu_conv2d_s8_fill(col + hi * c, p->x_zp, (size_t)(g->k_w - hi) * c);
        } else {
            for (kx = 0; kx < g->k_w; ++kx) {
                const int32_t ix = ix0 + kx * g->dil_w;
                if (ix >= 0 && ix < g->w_in) {
                    mcu_conv2d_s8_copy(col + kx * c, xr + (size_t)kx * g->dil_w * c, c);
                } else {
                    mcu_conv2d_s8_fill(col + kx * c, p->x_zp, c);
                }
            }
        }
    }
}

/* Taps of a gathered window: the kernel volume rounded up to a multiple of 4 (mcucomp/ops/conv2d_s8.py
 * column_taps; the weight rows are padded with zeros to match). */
#define MCU_CONV2D_S8_COLUMN(taps) (((taps) + 3) & ~3)

/* im2col path (group 1): the windows of two output pixels go to `col`, then the GEMM block; pixel pairs in the
 * order p->down says (mcucomp/ops/_overlap.py pixelwise_nhwc). */
static void mcu_conv2d_s8_im2col(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, int8_t *col,
                                 int32_t *rqt_store)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t taps = g->c_in * g->k_h * g->k_w, k = MCU_CONV2D_S8_COLUMN(taps);
    const int32_t pixels = g->n * g->h_out * g->w_out;
    const int32_t mode = mcu_conv2d_s8_rq_mode(p);
    mcu_conv2d_s8_row row = {-1, 0, 0};
    int32_t i, q0, q1;
    MCU_CONV2D_S8_RQT(p, (pixels + 1) / 2, rqt_store, rqt);
    /* the extra taps: zero bytes against zero weights (the gathers write the first `taps` bytes of a window only) */
    mcu_conv2d_s8_fill(col + taps, 0, (size_t)(k - taps));
    mcu_conv2d_s8_fill(col + k + taps, 0, (size_t)(k - taps));
    for (i = 0; 2 * i < pixels; ++i) {
        mcu_conv2d_s8_pair(i, pixels, p->down, &q0, &q1);
        mcu_conv2d_s8_gather(p, x, &row, q0, col);
        mcu_conv2d_s8_gather(p, x, &row, q1, col + k);
        mcu_conv2d_s8_gemm(p, mode, col, col + k, k, y + (size_t)q0 * g->c_out, y + (size_t)q1 * g->c_out, rqt);
    }
}

/* Local path: the im2col path with both windows gathered to the stack instead of an arena scratch (small windows,
such as a first conv over one input channel, where the direct path's span checks per kernel row dominate). */
static void mcu_conv2d_s8_local(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, int32_t *rqt_store)
{
    int8_t col[MCU_CONV2D_S8_LOCAL_COL];
    mcu_conv2d_s8_im2col(p, x, y, col, rqt_store);
}

/** The GEMM paths (pointwise, im2col, and local for every other path, few_channels off its DSP loop included); on
 * ARMv6-M this frame holds their requantization table's storage (one frame for the three, apart from the depthwise
 * path's call chain). */
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_gemm_paths(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y,
                                                           void *scratch)
{
#if defined(MCU_CONV2D_S8_GEMM_V6M)
    int32_t store[4 * MCU_CONV2D_S8_RQT_CHANNELS];
#else
    int32_t *const store = NULL;
#endif
    if (p->path == MCU_CONV2D_S8_POINTWISE) {
        mcu_conv2d_s8_pointwise(p, x, y, store);
    } else if (p->path == MCU_CONV2D_S8_IM2COL) {
        mcu_conv2d_s8_im2col(p, x, y, (int8_t *)scratch, store);
    } else {
        mcu_conv2d_s8_local(p, x, y, store);
    }
}

/* Few-channels path (MCU_CONV2D_S8_FEW_CHANNELS: group 1, c_in <= 4, no w_zp, a window of at most
 * MCU_CONV2D_S8_FEW_TAPS taps; the first convolution of an image or audio model). Without the DSP extension and an
 * FPU, or for a requantization other than the full-int8-range float one, it is the local path. On DSP cores with an
 * FPU it runs blocks of 2 pixels x 4 output channels on SMLAD alone: the taps go in int16 lane pairs, each window's
 * once per pixel pair (the small windows are reused by every channel) and the weights' once per call (reused by
 * every pixel pair), so the block loop has no SXTB16; the eight sums are requantized together and four channels of a
 * pixel stored as one word.
 *
 * The lane pairs (tap pairs): a kernel row is k_w * c_in = R bytes, contiguous inside the input; each of its R / 4
 * whole words gives two pairs, taps (0, 2) and (1, 3) of the word (SXTB16 and SXTB16 ROR #8); the R % 4 bytes left
 * of every row, row after row, pair up in order (when their count is odd, the last one's partner lane meets a zero
 * weight). The weights (rows in
 * window order, mcucomp/ops/conv2d_s8.py packed_weights) are paired the same way. */
#if MCU_CONV2D_S8_BLOCKS_ASM

/* Tap pairs per pass of the block loop (a block enters the pass part way so that its tap pairs end with a whole
 * pass; mcucomp/ops/conv2d_s8.py FEW_UNROLL) and the bytes of one (every instruction in its 32-bit encoding). */
#define MCU_CONV2D_S8_FEW_UNROLL 8
#define MCU_CONV2D_S8_FEW_STEP_BYTES 56
#define MCU_CONV2D_S8_FEW_STR_(v) #v
#define MCU_CONV2D_S8_FEW_STR(v) MCU_CONV2D_S8_FEW_STR_(v)

/* Words per group of four output channels in the weight stream besides its tap pairs: four folded biases first,
 * four scales last. */
#define MCU_CONV2D_S8_FEW_QUAD_EXTRA 8

/* One tap pair t of the 2x4 block: the two pixels' lane pairs (x0, x1) against the four channels' (two weight words
 * at a time); loads issue back to back, each pointer advanced by the last load through it (a load right after one
 * that wrote its base register does not pipeline). */
#define MCU_CONV2D_S8_FEW_STEP                                                                                        \
    "ldr.w %[x1], [%[xp], #4]\n\t"                                                                                     \
    "ldr.w %[x0], [%[xp]], #8\n\t"                                                                                     \
    "ldr.w %[wb], [%[wp], #4]\n\t"                                                                                     \
    "ldr.w %[wa], [%[wp]], #16\n\t"                                                                                    \
    "smlad %[a00], %[x0], %[wa], %[a00]\n\t"                                                                           \
    "smlad %[a01], %[x1], %[wa], %[a01]\n\t"                                                                           \
    "smlad %[a10], %[x0], %[wb], %[a10]\n\t"                                                                           \
    "smlad %[a11], %[x1], %[wb], %[a11]\n\t"                                                                           \
    "ldr.w %[wa], [%[wp], #-8]\n\t"                                                                                    \
    "ldr.w %[wb], [%[wp], #-4]\n\t"                                                                                    \
    "smlad %[a20], %[x0], %[wa], %[a20]\n\t"                                                                           \
    "smlad %[a21], %[x1], %[wa], %[a21]\n\t"                                                                           \
    "smlad %[a30], %[x0], %[wb], %[a30]\n\t"                                                                           \
    "smlad %[a31], %[x1], %[wb], %[a31]\n\t"
#define MCU_CONV2D_S8_FEW_STEP2 MCU_CONV2D_S8_FEW_STEP MCU_CONV2D_S8_FEW_STEP
#define MCU_CONV2D_S8_FEW_STEP4 MCU_CONV2D_S8_FEW_STEP2 MCU_CONV2D_S8_FEW_STEP2
#define MCU_CONV2D_S8_FEW_PASS MCU_CONV2D_S8_FEW_STEP4 MCU_CONV2D_S8_FEW_STEP4

/* Two values in S0, S1 scaled by SC. */
#define MCU_CONV2D_S8_FEW_SCALE2(S0, S1, SC)                                                                          \
    "vmul.f32 " S0 ", " S0 ", " SC "\n\t"                                                                              \
    "vmul.f32 " S1 ", " S1 ", " SC "\n\t"

/* Eight values: VCVT (to float) or VCVTR (back, round half to even, saturating) of s0 .. s7 in place. */
#define MCU_CONV2D_S8_FEW_CVT8(OP)                                                                                    \
    OP " s0, s0\n\t" OP " s1, s1\n\t" OP " s2, s2\n\t" OP " s3, s3\n\t"                                                \
    OP " s4, s4\n\t" OP " s5, s5\n\t" OP " s6, s6\n\t" OP " s7, s7\n\t"

/* M applied to the eight accumulators; M = QADD (x0 holds zp) or SSAT to 8 bits, in place. */
#define MCU_CONV2D_S8_FEW_EACH(M)                                                                                     \
    M("%[a00]") M("%[a01]") M("%[a10]") M("%[a11]") M("%[a20]") M("%[a21]") M("%[a30]") M("%[a31]")
#define MCU_CONV2D_S8_FEW_QADD(R) "qadd " R ", " R ", %[x0]\n\t"
#define MCU_CONV2D_S8_FEW_SSAT(R) "ssat " R ", #8, " R "\n\t"

/** What mcu_conv2d_s8_few_quads keeps in memory (every register is taken inside its loop: the caller's local,
 * addressed from sp once inlined). */
typedef struct {
    const int32_t *x16;     /* the pixel pair's tap pairs: pixel 0's, pixel 1's, the next tap pair's, .. */
    const int32_t *x16_end;
    int8_t *y0, *y1;        /* the next quad's outputs of pixels 0, 1 (loaded together) */
    const int8_t *y0_end;   /* y0 after the last quad */
    int32_t zp;
    int32_t skip;           /* bytes of the pass's steps a block skips */
    uint32_t entry;         /* where a block enters the pass (Thumb address) */
} mcu_conv2d_s8_few_state;

/** Groups of four output channels of one pixel pair, one after the other from `stream` (per group: the four folded
 * biases, per tap pair the four channels' lane pairs, the four scales) until y0 reaches y0_end: the 2x4 block
 * loop, then VCVT, VMUL by the channel's scale, VCVTR, QADD zp, SSAT #8 (mcu_requant_plain_s8) and one word store
 * per pixel. */
static MCU_INLINE void mcu_conv2d_s8_few_quads(mcu_conv2d_s8_few_state *st, const int32_t *stream)
{
    int32_t a00, a01, a10, a11, a20, a21, a30, a31, x0, x1, wa, wb;
    const int32_t *xp, *wp = stream;
    __asm__ volatile(
        "adr.w %[x0], 1f\n\t"
        "ldr %[x1], %[skip]\n\t"
        "add %[x0], %[x0], %[x1]\n\t"
        "orr %[x0], %[x0], #1\n\t"
        "str %[x0], %[entry]\n\t" MCU_CONV2D_S8_ALIGN
        "2:\n\t"
        "ldrd %[a00], %[a10], [%[wp]], #8\n\t"
        "ldrd %[a20], %[a30], [%[wp]], #8\n\t"
        "mov %[a01], %[a00]\n\t"
        "mov %[a11], %[a10]\n\t"
        "mov %[a21], %[a20]\n\t"
        "mov %[a31], %[a30]\n\t"
        "ldr %[xp], %[x16]\n\t"
        "ldr %[x0], %[entry]\n\t"
        "bx %[x0]\n\t"
        ".p2align 2\n"
        "1:\n\t" MCU_CONV2D_S8_FEW_PASS
        "3:\n\t"
        "ldr %[x0], %[x16end]\n\t"
        "cmp %[xp], %[x0]\n\t"
        "bne 1b\n\t"
        ".if (3b - 1b) != " MCU_CONV2D_S8_FEW_STR(MCU_CONV2D_S8_FEW_UNROLL) " * "
        MCU_CONV2D_S8_FEW_STR(MCU_CONV2D_S8_FEW_STEP_BYTES) "\n\t"
        ".error \"mcu_conv2d_s8_few_quads: a step is not MCU_CONV2D_S8_FEW_STEP_BYTES long\"\n\t"
        ".endif\n\t"
        /* pixel 0 in s0, s2, s4, s6 (channels 0 .. 3), pixel 1 in s1, s3, s5, s7 */
        "vmov s0, s1, %[a00], %[a01]\n\t"
        "vmov s2, s3, %[a10], %[a11]\n\t"
        "vmov s4, s5, %[a20], %[a21]\n\t"
        "vmov s6, s7, %[a30], %[a31]\n\t"
        MCU_CONV2D_S8_FEW_CVT8("vcvt.f32.s32")
        "vldmia %[wp]!, {s8-s11}\n\t"
        MCU_CONV2D_S8_FEW_SCALE2("s0", "s1", "s8") MCU_CONV2D_S8_FEW_SCALE2("s2", "s3", "s9")
        MCU_CONV2D_S8_FEW_SCALE2("s4", "s5", "s10") MCU_CONV2D_S8_FEW_SCALE2("s6", "s7", "s11")
        MCU_CONV2D_S8_FEW_CVT8("vcvtr.s32.f32")
        "vmov %[a00], %[a01], s0, s1\n\t"
        "vmov %[a10], %[a11], s2, s3\n\t"
        "vmov %[a20], %[a21], s4, s5\n\t"
        "vmov %[a30], %[a31], s6, s7\n\t"
        "ldr %[x0], %[zp]\n\t"
        MCU_CONV2D_S8_FEW_EACH(MCU_CONV2D_S8_FEW_QADD)
        MCU_CONV2D_S8_FEW_EACH(MCU_CONV2D_S8_FEW_SSAT)
        "bfi %[a00], %[a10], #8, #8\n\t"
        "bfi %[a00], %[a20], #16, #8\n\t"
        "bfi %[a00], %[a30], #24, #8\n\t"
        "bfi %[a01], %[a11], #8, #8\n\t"
        "bfi %[a01], %[a21], #16, #8\n\t"
        "bfi %[a01], %[a31], #24, #8\n\t"
        "ldrd %[x0], %[x1], %[y0]\n\t"
        "str %[a00], [%[x0]], #4\n\t"
        "str %[a01], [%[x1]], #4\n\t"
        "strd %[x0], %[x1], %[y0]\n\t"
        "ldr %[x1], %[y0end]\n\t"
        "cmp %[x0], %[x1]\n\t"
        "bne 2b\n\t"
        : [a00] "=&r"(a00), [a01] "=&r"(a01), [a10] "=&r"(a10), [a11] "=&r"(a11), [a20] "=&r"(a20),
          [a21] "=&r"(a21), [a30] "=&r"(a30), [a31] "=&r"(a31), [x0] "=&r"(x0), [x1] "=&r"(x1), [wa] "=&r"(wa),
          [wb] "=&r"(wb), [xp] "=&r"(xp), [wp] "+r"(wp), [y0] "+m"(st->y0), [entry] "=m"(st->entry)
        : [x16] "m"(st->x16), [x16end] "m"(st->x16_end), [y0end] "m"(st->y0_end), [zp] "m"(st->zp),
          [skip] "m"(st->skip)
        : "cc", "memory", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11");
}

/** The window geometry of mcu_conv2d_s8_few_dsp, worked out once per call: output pixel (n, oy, ox) reads its
 * window in place when oy_lo <= oy < oy_lo + oy_n and ox_lo <= ox < ox_lo + ox_n, from
 * x + n * image + oy * row + ox * col + origin, kernel rows `stride` bytes apart. */
typedef struct {
    int32_t plane, w_out, oy_lo, oy_n, ox_lo, ox_n, ox_pairs; /* ox_pairs: ox_n - 1 (ox and ox + 1 inside) */
    int32_t image, row, col, origin;
    size_t stride;
    int32_t run, words, n_left; /* a kernel row's bytes, its whole words, the bytes left of all rows */
    int32_t left_x[MCU_CONV2D_S8_FEW_TAPS], left_col[MCU_CONV2D_S8_FEW_TAPS]; /* their offsets in x, in col */
} mcu_conv2d_s8_few_geo;

/** First and count of the output positions whose window (k taps, dilation dil, stride, pad) lies inside len. */
static void mcu_conv2d_s8_few_inside(int32_t out, int32_t len, int32_t k, int32_t dil, int32_t stride, int32_t pad,
                                     int32_t *lo, int32_t *n)
{
    int32_t o;
    *lo = out;
    *n = 0;
    for (o = 0; o < out; ++o) {
        const int32_t i0 = o * stride - pad;
        if (i0 >= 0 && i0 + (k - 1) * dil < len) {
            *lo = *n == 0 ? o : *lo;
            *n += 1;
        }
    }
}

/** Fill *f for the call's geometry. */
static void mcu_conv2d_s8_few_geometry(const mcu_conv_geom *g, mcu_conv2d_s8_few_geo *f)
{
    int32_t i;
    f->plane = g->h_out * g->w_out;
    f->w_out = g->w_out;
    mcu_conv2d_s8_few_inside(g->h_out, g->h_in, g->k_h, g->dil_h, g->stride_h, g->pad_t, &f->oy_lo, &f->oy_n);
    mcu_conv2d_s8_few_inside(g->w_out, g->w_in, g->k_w, g->dil_w, g->stride_w, g->pad_l, &f->ox_lo, &f->ox_n);
    f->ox_n = g->dil_w == 1 ? f->ox_n : 0;
    f->ox_pairs = f->ox_n > 0 ? f->ox_n - 1 : 0;
    f->image = g->h_in * g->w_in * g->c_in;
    f->row = g->stride_h * g->w_in * g->c_in;
    f->col = g->stride_w * g->c_in;
    f->origin = -(g->pad_t * g->w_in + g->pad_l) * g->c_in;
    f->stride = (size_t)g->dil_h * g->w_in * g->c_in;
    f->run = g->k_w * g->c_in;
    f->words = f->run / 4;
    f->n_left = (f->run % 4) * g->k_h;
    for (i = 0; i < f->n_left; ++i) { /* row i / (R % 4), byte (R & ~3) + i % (R % 4) */
        const int32_t row = i / (f->run % 4), byte = (f->run & ~3) + i % (f->run % 4);
        f->left_x[i] = row * (int32_t)f->stride + byte;
        f->left_col[i] = row * f->run + byte;
    }
}

/** Where the tap pairs of a pixel pair come from: its two windows' kernel rows at a and b, `stride` bytes apart, the
 * bytes left of the rows at a + left[i], b + left[i]. */
typedef struct {
    const int8_t *a, *b;
    size_t stride;
    const int32_t *left;
} mcu_conv2d_s8_few_source;

/** The windows of pixel pair (q0, q1): in place when q1 = q0 + 1 in the same output row and both windows are inside
 * the input (the second one output column after the first), else both gathered to col (mcu_conv2d_s8_gather: rows
 * of R bytes; the second at col + MCU_CONV2D_S8_FEW_TAPS). Returns the pairs from this one on, in the order p->down
 * says, whose windows lie in place two output columns apart in the same row (1 when gathered). */
static MCU_INLINE int32_t mcu_conv2d_s8_few_windows(const mcu_conv2d_s8_params *p,
                                                              const mcu_conv2d_s8_few_geo *f, const int8_t *x,
                                                              int32_t q0, int32_t q1, int8_t *col,
                                                              mcu_conv2d_s8_few_source *s)
{
    const int32_t n = q0 / f->plane, r = q0 - n * f->plane, oy = r / f->w_out, ox = r - oy * f->w_out;
    if (q1 == q0 + 1 && (uint32_t)(oy - f->oy_lo) < (uint32_t)f->oy_n &&
        (uint32_t)(ox - f->ox_lo) < (uint32_t)f->ox_pairs) {
        s->a = x + (n * f->image + oy * f->row + ox * f->col + f->origin);
        s->b = s->a + f->col;
        s->stride = f->stride;
        s->left = f->left_x;
        return p->down ? (ox - f->ox_lo) / 2 + 1 : (f->ox_lo + f->ox_pairs - ox + 1) / 2;
    }
    mcu_conv2d_s8_row row = {-1, 0, 0}; /* no cache on these cores (they divide in hardware) */
    mcu_conv2d_s8_gather(p, x, &row, q0, col);
    mcu_conv2d_s8_gather(p, x, &row, q1, col + MCU_CONV2D_S8_FEW_TAPS);
    s->a = col;
    s->b = col + MCU_CONV2D_S8_FEW_TAPS;
    s->stride = (size_t)f->run;
    s->left = f->left_col;
    return 1;
}

/* One word of each window split into its tap pairs (SXTB16, SXTB16 ROR #8), the four stored interleaved. */
#define MCU_CONV2D_S8_FEW_WORD                                                                                         \
    "ldr %[va], [%[a]], #4\n\t"                                                                                       \
    "ldr %[vb], [%[b]], #4\n\t"                                                                                       \
    "sxtb16 %[ea], %[va]\n\t"                                                                                         \
    "sxtb16 %[eb], %[vb]\n\t"                                                                                         \
    "sxtb16 %[va], %[va], ror #8\n\t"                                                                                 \
    "sxtb16 %[vb], %[vb], ror #8\n\t"                                                                                 \
    "strd %[ea], %[eb], [%[o]], #16\n\t"                                                                              \
    "strd %[va], %[vb], [%[o], #-8]\n\t"
/* The loops over rows and over a row's words, WORDS (one or two word steps) a turn. */
#define MCU_CONV2D_S8_FEW_ROWS(WORDS)                                                                                  \
    "2:\n\t"                                                                                                          \
    "mov %[n], %[turns]\n"                                                                                             \
    "1:\n\t" WORDS                                                                                                    \
    "subs %[n], %[n], #1\n\t"                                                                                         \
    "bne 1b\n\t"                                                                                                      \
    "add %[a], %[a], %[skip]\n\t"                                                                                     \
    "add %[b], %[b], %[skip]\n\t"                                                                                     \
    "subs %[rows], %[rows], #1\n\t"                                                                                   \
    "bne 2b\n\t"

/** The whole words of `rows` kernel rows (`words` >= 1 a row, rows `stride` bytes apart) of the windows at a and b
 * split into tap pairs, interleaved from out (four words per word), two words a turn when their count is even;
 * returns the end. */
static MCU_INLINE int32_t *mcu_conv2d_s8_few_words(const int8_t *a, const int8_t *b, size_t stride,
                                                             int32_t rows, int32_t words, int32_t *out)
{
    int32_t va, vb, ea, eb, n;
    const int32_t skip = (int32_t)stride - 4 * words, turns = words % 2 == 0 ? words / 2 : words;
#define MCU_CONV2D_S8_FEW_WORDS_OPERANDS                                                                               \
    : [a] "+r"(a), [b] "+r"(b), [o] "+r"(out), [rows] "+r"(rows), [n] "=&r"(n), [va] "=&r"(va), [vb] "=&r"(vb),        \
      [ea] "=&r"(ea), [eb] "=&r"(eb)                                                                                    \
    : [turns] "r"(turns), [skip] "r"(skip)                                                                              \
    : "cc", "memory"
    if (words % 2 == 0) {
        __asm__ volatile(MCU_CONV2D_S8_FEW_ROWS(MCU_CONV2D_S8_FEW_WORD MCU_CONV2D_S8_FEW_WORD)
                             MCU_CONV2D_S8_FEW_WORDS_OPERANDS);
    } else {
        __asm__ volatile(MCU_CONV2D_S8_FEW_ROWS(MCU_CONV2D_S8_FEW_WORD) MCU_CONV2D_S8_FEW_WORDS_OPERANDS);
    }
#undef MCU_CONV2D_S8_FEW_WORDS_OPERANDS
    return out;
}
#undef MCU_CONV2D_S8_FEW_ROWS
#undef MCU_CONV2D_S8_FEW_WORD

/** The last byte of each of `rows` kernel rows (a, b: row 0's, rows `stride` bytes apart) of the windows at a and
 * b, two rows a tap pair (PKHBT), interleaved from out as mcu_conv2d_s8_few_lanes puts them; an odd last row's
 * byte alone. The few-channels windows whose rows end one byte past their words (3x3 RGB). */
static MCU_INLINE void mcu_conv2d_s8_few_left1(const int8_t *a, const int8_t *b, size_t stride,
                                                         int32_t rows, int32_t *out)
{
    int32_t a0, a1, b0, b1;
    __asm__ volatile("subs %[rows], %[rows], #2\n\t"
                     "blt 2f\n"
                     "1:\n\t"
                     "ldrsb %[a0], [%[a]]\n\t"
                     "ldrsb %[a1], [%[a], %[st]]\n\t"
                     "ldrsb %[b0], [%[b]]\n\t"
                     "ldrsb %[b1], [%[b], %[st]]\n\t"
                     "pkhbt %[a0], %[a0], %[a1], lsl #16\n\t"
                     "pkhbt %[b0], %[b0], %[b1], lsl #16\n\t"
                     "strd %[a0], %[b0], [%[o]], #8\n\t"
                     "add %[a], %[a], %[st], lsl #1\n\t"
                     "add %[b], %[b], %[st], lsl #1\n\t"
                     "subs %[rows], %[rows], #2\n\t"
                     "bge 1b\n"
                     "2:\n\t"
                     "adds %[rows], %[rows], #2\n\t"
                     "beq 3f\n\t"
                     "ldrsb %[a0], [%[a]]\n\t"
                     "ldrsb %[b0], [%[b]]\n\t"
                     "strd %[a0], %[b0], [%[o]]\n"
                     "3:\n\t"
                     : [a] "+r"(a), [b] "+r"(b), [o] "+r"(out), [rows] "+r"(rows), [a0] "=&r"(a0), [a1] "=&r"(a1),
                       [b0] "=&r"(b0), [b1] "=&r"(b1)
                     : [st] "r"(stride)
                     : "cc", "memory");
}

/** The tap pairs of a pixel pair's windows, interleaved: out[2t], out[2t + 1] = tap pair t of a, of b. An odd last
 * byte left pairs with whatever its word's upper half holds (against a zero weight). */
static MCU_INLINE void mcu_conv2d_s8_few_lanes(const mcu_conv_geom *g, const mcu_conv2d_s8_few_geo *f,
                                                         const mcu_conv2d_s8_few_source *s, int32_t *out)
{
    const int8_t *a = s->a, *b = s->b;
    const int32_t *left = s->left;
    int32_t i;
    if (f->words > 0) {
        out = mcu_conv2d_s8_few_words(a, b, s->stride, g->k_h, f->words, out);
    }
    if (f->run % 4 == 1) {
        mcu_conv2d_s8_few_left1(a + f->run - 1, b + f->run - 1, s->stride, g->k_h, out);
        return;
    }
    for (i = 0; i + 1 < f->n_left; i += 2, out += 2) {
        const int32_t l0 = left[i], l1 = left[i + 1];
        out[0] = (int32_t)(((uint32_t)a[l1] << 16) | (uint16_t)a[l0]);
        out[1] = (int32_t)(((uint32_t)b[l1] << 16) | (uint16_t)b[l0]);
    }
    if (i < f->n_left) {
        out[0] = a[left[i]];
        out[1] = b[left[i]];
    }
}

/** One weight word (taps j .. j + 3 of rows w) of channel c, or zeros past c_out. */
static int32_t mcu_conv2d_s8_few_word(const mcu_conv2d_s8_params *p, int32_t k, int32_t c, int32_t j)
{
    return c < p->g.c_out ? mcu_conv2d_s8_load4(p->w + (size_t)c * k + j) : 0;
}

/* The few-channels path on DSP cores with an FPU, full-int8-range float requantization, no w_zp. */
static void mcu_conv2d_s8_few_dsp(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t run = g->k_w * g->c_in, taps = run * g->k_h, k = MCU_CONV2D_S8_COLUMN(taps), c_out = g->c_out;
    const int32_t quads = (c_out + 3) / 4, full = c_out / 4, pairs = (taps + 1) / 2;
    const int32_t pixels = g->n * g->h_out * g->w_out;
    int32_t stream[MCU_CONV2D_S8_FEW_STREAM / 4], x16[MCU_CONV2D_S8_FEW_TAPS + 2];
    int8_t col[2 * MCU_CONV2D_S8_FEW_TAPS], part[8];
    mcu_conv2d_s8_few_geo f;
    mcu_conv2d_s8_few_state st;
    mcu_conv2d_s8_few_source src;
    const ptrdiff_t step = (p->down ? -2 : 2) * (ptrdiff_t)g->stride_w * g->c_in, ystep = (p->down ? -2 : 2) * c_out;
    int8_t *y0 = y, *y1 = y;
    int32_t i, j, c, q0, q1, in_place = 0, *out = stream;
    mcu_conv2d_s8_few_geometry(g, &f);
    for (i = 0; i < quads; ++i) { /* the stream, group by group: biases, tap pairs, scales */
        for (c = 0; c < 4; ++c) {
            const int32_t oc = 4 * i + c < c_out ? 4 * i + c : c_out - 1;
            out[c] = 4 * i + c < c_out ? p->kbias[oc] : 0;
            memcpy(&out[pairs * 4 + 4 + c], &p->rq.scale[p->rq.per_channel ? oc : 0], 4);
        }
        out += 4;
        for (j = 0; j < g->k_h; ++j) { /* whole words: as mcu_conv2d_s8_few_lanes, four rows at a time */
            int32_t b;
            for (b = 0; b + 4 <= run; b += 4, out += 8) {
                for (c = 0; c < 4; ++c) {
                    const int32_t v = mcu_conv2d_s8_few_word(p, k, 4 * i + c, j * run + b);
                    out[c] = __sxtb16(v);
                    out[4 + c] = mcu_conv2d_s8_odd(v);
                }
            }
        }
        for (j = 0; j < f.n_left; j += 2, out += 4) { /* the left bytes, as a window's */
            for (c = 0; c < 4; ++c) {
                const int8_t *wr = p->w + (size_t)(4 * i + c < c_out ? 4 * i + c : 0) * k;
                const int32_t lo = wr[f.left_col[j]], hi = j + 1 < f.n_left ? wr[f.left_col[j + 1]] : 0;
                out[c] = 4 * i + c < c_out ? (int32_t)(((uint32_t)hi << 16) | (uint16_t)lo) : 0;
            }
        }
        out += 4;
    }
    st.x16 = x16;
    st.x16_end = x16 + 2 * pairs;
    st.zp = p->rq.zp;
    st.skip = (MCU_CONV2D_S8_FEW_UNROLL - 1 - (pairs - 1) % MCU_CONV2D_S8_FEW_UNROLL) * MCU_CONV2D_S8_FEW_STEP_BYTES;
    for (i = 0; 2 * i < pixels; ++i) {
        if (in_place == 0) { /* locate the pair; in place, the in-place pairs from it in its row */
            mcu_conv2d_s8_pair(i, pixels, p->down, &q0, &q1);
            in_place = mcu_conv2d_s8_few_windows(p, &f, x, q0, q1, col, &src);
            y0 = y + (size_t)q0 * c_out;
            y1 = y + (size_t)q1 * c_out;
        } else { /* the run's next pair: two output columns on (or back) */
            src.a += step;
            src.b += step;
            y0 += ystep;
            y1 += ystep;
        }
        --in_place;
        mcu_conv2d_s8_few_lanes(g, &f, &src, x16);
        for (j = full > 0 ? 0 : 1; j < (full < quads ? 2 : 1); ++j) { /* one call site: the assembly once */
            /* j = 0: the full groups to y0, y1; j = 1: the last c_out % 4 channels' group to `part` */
            st.y0 = j == 0 ? y0 : part;
            st.y1 = j == 0 ? y1 : part + 4;
            st.y0_end = j == 0 ? y0 + 4 * full : part + 4;
            mcu_conv2d_s8_few_quads(&st, stream + (size_t)j * full * (MCU_CONV2D_S8_FEW_QUAD_EXTRA + 4 * pairs));
        }
        for (c = 4 * full; c < c_out; ++c) {
            y0[c] = part[c - 4 * full];
            y1[c] = part[c - 4 * full + 4];
        }
    }
}
#endif

/* Few-channels path: see above; elsewhere the local path (the same weights). */
static void mcu_conv2d_s8_few(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y)
{
#if MCU_CONV2D_S8_BLOCKS_ASM
    if (p->w_zp == NULL && mcu_conv2d_s8_rq_mode(p) == MCU_CONV2D_S8_RQ_S8) {
        mcu_conv2d_s8_few_dsp(p, x, y);
        return;
    }
#endif
    mcu_conv2d_s8_gemm_paths(p, x, y, NULL);
}

/* One output pixel of the general path, channel by channel, taps outside the input read as x_zp. xw: the image;
 * weights output channel by output channel, each as kernel row, kernel column, input channel of its group (group
 * g reads input channels g * cin_g ..). */
static void mcu_conv2d_s8_checked(const mcu_conv2d_s8_params *p, const mcu_requant *rq, int32_t plain,
                                  const int8_t *xw, int32_t iy0, int32_t ix0, int8_t *yp)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t cin_g = g->c_in / g->group, cout_g = g->c_out / g->group;
    const int32_t k = cin_g * g->k_h * g->k_w;
    int32_t oc, ky, kx, ic;
    for (oc = 0; oc < g->c_out; ++oc) {
        const int8_t *wk = p->w + (size_t)oc * k;
        const int32_t c0 = (oc / cout_g) * cin_g;
        int32_t acc = p->kbias[oc], xsum = 0;
        for (ky = 0; ky < g->k_h; ++ky) {
            const int32_t iy = iy0 + ky * g->dil_h;
            for (kx = 0; kx < g->k_w; ++kx, wk += cin_g) {
                const int32_t ix = ix0 + kx * g->dil_w;
                if (iy >= 0 && iy < g->h_in && ix >= 0 && ix < g->w_in) {
                    const int8_t *xt = xw + ((size_t)iy * g->w_in + ix) * g->c_in + c0;
                    for (ic = 0; ic < cin_g; ++ic) {
                        acc += (int32_t)xt[ic] * wk[ic];
                        xsum += xt[ic];
                    }
                } else {
                    for (ic = 0; ic < cin_g; ++ic) {
                        acc += p->x_zp * wk[ic];
                    }
                    xsum += p->x_zp * cin_g;
                }
            }
        }
        if (p->w_zp) {
            acc -= p->w_zp[oc] * xsum;
        }
        yp[oc] = mcu_conv2d_s8_requant(rq, plain, acc, oc);
    }
}

/* Output pixel q's window for the direct path: its image, first tap (in the padding when negative) and the
 * kernel columns kx_lo .. kx_hi - 1 that fall inside the input. */
typedef struct {
    const int8_t *image;
    int32_t iy0, ix0, kx_lo, kx_hi;
} mcu_conv2d_s8_window;

/** Fill *win for output pixel q. */
static void mcu_conv2d_s8_window_of(const mcu_conv_geom *g, const int8_t *x, int32_t q, mcu_conv2d_s8_window *win)
{
    const int32_t start = mcu_conv2d_s8_window_start(g, q, &win->iy0, &win->ix0);
    win->image = x + (size_t)(start - win->iy0 * g->w_in - win->ix0) * g->c_in;
    mcu_conv2d_s8_valid_taps(win->ix0, g->w_in, g->k_w, g->dil_w, &win->kx_lo, &win->kx_hi);
}

/** mcu_conv2d_s8_dot2x2 for any k, out of line: the direct path's spans at the border (the inline copies cost
 * flash for little time). */
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_dot2x2_span(const int8_t *w0, const int8_t *w1, const int8_t *c0,
                                                            const int8_t *c1, int32_t k, int32_t acc[4])
{
    mcu_conv2d_s8_dot2x2(w0, w1, c0, c1, k, 0, acc);
}

/* acc (2x2 block of output channels w0, w1 and pixels a, b) += one kernel row, split where either window enters or
 * leaves the input (at most five spans): taps in the padding read p->zrow (x_zp, k_w * c_in bytes), a span inside
 * is one dot when undilated. */
static void mcu_conv2d_s8_direct_row(const mcu_conv2d_s8_params *p, const int8_t *w0, const int8_t *w1,
                                     const mcu_conv2d_s8_window *a, const mcu_conv2d_s8_window *b, int32_t ky,
                                     int32_t acc[4])
{
    const mcu_conv_geom *g = &p->g;
    const int32_t c = g->c_in, ya = a->iy0 + ky * g->dil_h, yb = b->iy0 + ky * g->dil_h;
    const int32_t row_a = ya >= 0 && ya < g->h_in, row_b = yb >= 0 && yb < g->h_in;
    const int32_t lo_a = row_a ? a->kx_lo : g->k_w, hi_a = row_a ? a->kx_hi : g->k_w;
    const int32_t lo_b = row_b ? b->kx_lo : g->k_w, hi_b = row_b ? b->kx_hi : g->k_w;
    int32_t from = 0, to, kx;
    for (; from < g->k_w; from = to) {
        const int32_t in_a = from >= lo_a && from < hi_a, in_b = from >= lo_b && from < hi_b;
        to = g->k_w;
        to = lo_a > from && lo_a < to ? lo_a : to;
        to = hi_a > from && hi_a < to ? hi_a : to;
        to = lo_b > from && lo_b < to ? lo_b : to;
        to = hi_b > from && hi_b < to ? hi_b : to;
        if (g->dil_w == 1 || (!in_a && !in_b)) {
            mcu_conv2d_s8_dot2x2_span(w0 + from * c, w1 + from * c,
                                 in_a ? a->image + ((size_t)ya * g->w_in + a->ix0 + from) * c : p->zrow,
                                 in_b ? b->image + ((size_t)yb * g->w_in + b->ix0 + from) * c : p->zrow,
                                 (to - from) * c, acc);
            continue;
        }
        for (kx = from; kx < to; ++kx) {
            mcu_conv2d_s8_dot2x2_span(w0 + kx * c, w1 + kx * c,
                                 in_a ? a->image + ((size_t)ya * g->w_in + a->ix0 + kx * g->dil_w) * c : p->zrow,
                                 in_b ? b->image + ((size_t)yb * g->w_in + b->ix0 + kx * g->dil_w) * c : p->zrow, c,
                                 acc);
        }
    }
}

/* Sum of pixel q's window, taps in the padding as x_zp (the w_zp term). */
static int32_t mcu_conv2d_s8_window_sum(const mcu_conv2d_s8_params *p, const mcu_conv2d_s8_window *a)
{
    const mcu_conv_geom *g = &p->g;
    int32_t sum = 0, ky, kx, ic;
    for (ky = 0; ky < g->k_h; ++ky) {
        const int32_t iy = a->iy0 + ky * g->dil_h;
        for (kx = 0; kx < g->k_w; ++kx) {
            if (iy >= 0 && iy < g->h_in && kx >= a->kx_lo && kx < a->kx_hi) {
                const int8_t *xt = a->image + ((size_t)iy * g->w_in + a->ix0 + kx * g->dil_w) * g->c_in;
                for (ic = 0; ic < g->c_in; ++ic) {
                    sum += xt[ic];
                }
            } else {
                sum += p->x_zp * g->c_in;
            }
        }
    }
    return sum;
}

/* Direct path (group 1, no scratch): the GEMM block reads two pixels' windows in place, kernel row by kernel row
 * (one dot per span of a row that is inside the input or in the padding for both), padded taps from p->zrow.
 * Pairs in the order p->down says (mcucomp/ops/_overlap.py pixelwise_nhwc). */
static MCU_CONV2D_S8_OUTLINE void mcu_conv2d_s8_direct(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const mcu_requant rq = p->rq;
    const int32_t pixels = g->n * g->h_out * g->w_out, c_out = g->c_out, k = g->c_in * g->k_h * g->k_w;
    const int32_t mode = mcu_conv2d_s8_rq_mode(p);
    const int32_t last_row = (g->k_h - 1) * g->dil_h, seg = g->k_w * g->c_in; /* w row step */
    const size_t rs = (size_t)g->dil_h * g->w_in * g->c_in;                    /* x row step */
    int32_t i, q0, q1, oc, ky;
    for (i = 0; 2 * i < pixels; ++i) {
        mcu_conv2d_s8_window a, b;
        int8_t *ya, *yb;
        int32_t sa = 0, sb = 0;
        mcu_conv2d_s8_pair(i, pixels, p->down, &q0, &q1);
        mcu_conv2d_s8_window_of(g, x, q0, &a);
        mcu_conv2d_s8_window_of(g, x, q1, &b);
        ya = y + (size_t)q0 * c_out;
        yb = y + (size_t)q1 * c_out;
        if (g->dil_w == 1 && a.kx_lo == 0 && a.kx_hi == g->k_w && b.kx_lo == 0 && b.kx_hi == g->k_w &&
            a.iy0 >= 0 && b.iy0 >= 0 && a.iy0 + last_row < g->h_in && b.iy0 + last_row < g->h_in) {
            /* both windows inside the input, undilated rows: the GEMM over k_h runs per column, no spans */
            mcu_conv2d_s8_gemm_rows(p, mode, a.image + ((size_t)a.iy0 * g->w_in + a.ix0) * g->c_in,
                                    b.image + ((size_t)b.iy0 * g->w_in + b.ix0) * g->c_in, g->k_h, seg, rs, ya,
                                    yb);
            continue;
        }
        if (p->w_zp) {
            sa = mcu_conv2d_s8_window_sum(p, &a);
            sb = mcu_conv2d_s8_window_sum(p, &b);
        }
        for (oc = 0; oc < c_out; oc += 2) {
            const int32_t oc1 = oc + 1 < c_out ? oc + 1 : oc;
            const int32_t z0 = p->w_zp ? p->w_zp[oc] : 0, z1 = p->w_zp ? p->w_zp[oc1] : 0;
            const int8_t *w0 = p->w + (size_t)oc * k, *w1 = p->w + (size_t)oc1 * k;
            int32_t acc[4];
            acc[0] = p->kbias[oc] - z0 * sa;
            acc[1] = p->kbias[oc] - z0 * sb;
            acc[2] = p->kbias[oc1] - z1 * sa;
            acc[3] = p->kbias[oc1] - z1 * sb;
            for (ky = 0; ky < g->k_h; ++ky) {
                mcu_conv2d_s8_direct_row(p, w0 + ky * seg, w1 + ky * seg, &a, &b, ky, acc);
            }
            mcu_conv2d_s8_store2x2(&rq, mode, acc, oc, oc1, ya, yb);
        }
    }
}

/* General path (weights: output channel, kernel row, kernel column, input channel of its group): output pixels one
 * by one, up or down as p->down says, all channels of one before the next (mcucomp/ops/_overlap.py
 * pixelwise_nhwc). */
static void mcu_conv2d_s8_general(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y)
{
    const mcu_conv_geom *g = &p->g;
    const mcu_requant rq = p->rq;
    const int32_t pixels = g->n * g->h_out * g->w_out, plain = p->rq_plain;
    int32_t i, iy0, ix0;
    for (i = 0; i < pixels; ++i) {
        const int32_t q = p->down ? pixels - 1 - i : i;
        const int32_t start = mcu_conv2d_s8_window_start(g, q, &iy0, &ix0);
        const int8_t *xw = x + (size_t)(start - iy0 * g->w_in - ix0) * g->c_in;
        mcu_conv2d_s8_checked(p, &rq, plain, xw, iy0, ix0, y + (size_t)q * g->c_out);
    }
}

void mcu_conv2d_s8(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch)
{
    switch (p->path) {
    case MCU_CONV2D_S8_POINTWISE:
    case MCU_CONV2D_S8_IM2COL:
    case MCU_CONV2D_S8_LOCAL:
        mcu_conv2d_s8_gemm_paths(p, x, y, scratch);
        break;
    case MCU_CONV2D_S8_DEPTHWISE:
    case MCU_CONV2D_S8_DEPTHWISE_RING:
        mcu_conv2d_s8_dw(p, x, y);
        break;
    case MCU_CONV2D_S8_DIRECT:
        mcu_conv2d_s8_direct(p, x, y);
        break;
    case MCU_CONV2D_S8_FEW_CHANNELS:
        mcu_conv2d_s8_few(p, x, y);
        break;
    default:
        mcu_conv2d_s8_general(p, x, y);
        break;
    }
}
