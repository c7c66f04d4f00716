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
static MCU_CONV2D_S8_INLINE int32_t mcu_conv2d_s8_dot2x2_steps(const int8_t *w0, const int8_t *w1,
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
static MCU_CONV2D_S8_INLINE void mcu_conv2d_s8_dot2x2_rows16(const int8_t *w0, const int8_t *w1, const int8_t *c0,
                                                             const int8_t *c1, int32_t seg, int32_t rows, size_t rs,
                                                             int32_t acc[4])
{
    int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3];
    int32_t x0e, x0o, x1e, x1o, wv, we;
    const int8_t *end = c0 + seg;
    const int32_t jump = (int32_t)rs - seg, stride = (int32_t)rs;
    __asm__ volatile("1:\n\t" MCU_CONV2D_S8_SIXTEEN
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
/* The naked functions' entry and exit (AAPCS): r4-r7 and lr, then r8-r11 through the low registers, 36 bytes pushed;
 * the exit restores them and returns. */
#define MCU_CONV2D_S8_V6M_ENTER                                                                                      \
    "push {r4, r5, r6, r7, lr}\n\t"                                                                                   \
    "mov r4, r8\n\t"                                                                                                  \
    "mov r5, r9\n\t"                                                                                                  \
    "mov r6, r10\n\t"                                                                                                 \
    "mov r7, r11\n\t"                                                                                                 \
    "push {r4, r5, r6, r7}\n\t"
#define MCU_CONV2D_S8_V6M_LEAVE                                                                                      \
    "pop {r4, r5, r6, r7}\n\t"                                                                                        \
    "mov r8, r4\n\t"                                                                                                  \
    "mov r9, r5\n\t"                                                                                                  \
    "mov r10, r6\n\t"                                                                                                 \
    "mov r11, r7\n\t"                                                                                                 \
    "pop {r4, r5, r6, r7, pc}\n\t"
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
static MCU_CONV2D_S8_INLINE void mcu_conv2d_s8_dot2x2(const int8_t *w0, const int8_t *w1, const int8_t *c0,
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

/** The requantization mode (MCU_CONV2D_S8_RQ_*) of rq for c_out channels. */
static int32_t mcu_conv2d_s8_rq_mode(const mcu_requant *rq, int32_t c_out)
{
#if defined(__arm__) && !defined(__ARM_FP) /* soft float: not worth inlining at every output (fixed is the default) */
    (void)rq;
    (void)c_out;
    return MCU_CONV2D_S8_RQ_ANY;
#else
    if (!mcu_requant_is_plain(rq, c_out)) {
        return MCU_CONV2D_S8_RQ_ANY;
    }
    return rq->qmin == -128 && rq->qmax == 127 ? MCU_CONV2D_S8_RQ_S8 : MCU_CONV2D_S8_RQ_PLAIN;
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

/** mcu_conv2d_s8_gemm on ARMv6-M without weight zero points, fixed mode with double rounding, qmin <= zp <= qmax:
 * every pair of output channels in one function (no calls, no C around the blocks): accumulators from kbias, the
 * 2x2 loop, then the four outputs requantized as in mcu_conv2d_s8_store2x2_fixed. */
__attribute__((naked, noinline)) static void mcu_conv2d_s8_gemm_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
                                                                    MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_V6M_GEMM(
            MCU_CONV2D_S8_V6M_DOT(MCU_CONV2D_S8_V6M_TAP)
            "mov r3, r8\n\t" /* channel oc's accumulators stay in r3, r4, oc1's wait on the stack */
            "mov r4, r9\n\t"
            "mov r6, r10\n\t"
            "mov r7, r11\n\t"
            "str r6, [sp, #24]\n\t"
            "str r7, [sp, #28]\n\t"
            MCU_CONV2D_S8_V6M_RQ_SETUP
            MCU_CONV2D_S8_V6M_RQ_CHANNEL(4, "")
            MCU_CONV2D_S8_V6M_RQ_CHANNEL(8, "ldr r3, [sp, #24]\n\tldr r4, [sp, #28]\n\t")));
}

/** mcu_conv2d_s8_gemm_v6m for a lone pixel (c0 == c1, y0 == y1): the 1x2 block (MCU_CONV2D_S8_V6M_TAP1) and one
 * output per channel. */
__attribute__((naked, noinline)) static void mcu_conv2d_s8_gemm1_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
                                                                     MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_V6M_GEMM(
            MCU_CONV2D_S8_V6M_DOT(MCU_CONV2D_S8_V6M_TAP1)
            "mov r3, r8\n\t"
            "mov r6, r10\n\t"
            "str r6, [sp, #24]\n\t"
            MCU_CONV2D_S8_V6M_RQ_SETUP
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
            MCU_CONV2D_S8_V6M_GEMM(
            MCU_CONV2D_S8_V6M_DOT(MCU_CONV2D_S8_V6M_TAP)
            "mov r3, r8\n\t" /* channel oc's accumulators stay in r3, r4, oc1's wait on the stack */
            "mov r4, r9\n\t"
            "mov r6, r10\n\t"
            "mov r7, r11\n\t"
            "str r6, [sp, #24]\n\t"
            "str r7, [sp, #28]\n\t"
            MCU_CONV2D_S8_V6M_RQ_SETUP
            MCU_CONV2D_S8_V6M_RQ_CHANNEL_T("")
            MCU_CONV2D_S8_V6M_RQ_CHANNEL_T("ldr r3, [sp, #24]\n\tldr r4, [sp, #28]\n\t")));
}

/** mcu_conv2d_s8_gemm1_v6m with the requantization table a->rqt. */
__attribute__((naked, noinline)) static void mcu_conv2d_s8_gemm1_t_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
                                                                       MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_V6M_GEMM(
            MCU_CONV2D_S8_V6M_DOT(MCU_CONV2D_S8_V6M_TAP1)
            "mov r3, r8\n\t"
            "mov r6, r10\n\t"
            "str r6, [sp, #24]\n\t"
            MCU_CONV2D_S8_V6M_RQ_SETUP
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
#undef MCU_CONV2D_S8_V6M_DOT
#undef MCU_CONV2D_S8_V6M_TAP
#undef MCU_CONV2D_S8_V6M_TAP1
#undef MCU_CONV2D_S8_REG_ARG
#undef MCU_CONV2D_S8_V6M_ENTER
#undef MCU_CONV2D_S8_V6M_LEAVE
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
static MCU_CONV2D_S8_INLINE void mcu_conv2d_s8_store2x2(const mcu_requant *rq, int32_t mode, const int32_t acc[4],
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
static MCU_CONV2D_S8_INLINE void mcu_conv2d_s8_gemm_body(const mcu_conv2d_s8_params *p, int32_t mode,
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

/* Pointwise path: the GEMM reads each pixel's c_in inputs in place (contiguous channels-last), pixel pairs in the
 * order p->down says (mcucomp/ops/_overlap.py pointwise_nhwc). */
static void mcu_conv2d_s8_pointwise(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, int32_t *rqt_store)
{
    const mcu_conv_geom *g = &p->g;
    const int32_t c_in = g->c_in, c_out = g->c_out, pixels = g->n * g->h_out * g->w_out;
    const int32_t mode = mcu_conv2d_s8_rq_mode(&p->rq, c_out);
    const int32_t unit = g->stride_h == 1 && g->stride_w == 1; /* (unpadded) pixel q reads input pixel q */
    int32_t i, q0, q1, iy, ix;
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
static MCU_CONV2D_S8_INLINE void mcu_conv2d_s8_copy(int8_t *dst, const int8_t *src, size_t n)
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
static MCU_CONV2D_S8_INLINE void mcu_conv2d_s8_fill(int8_t *dst, int32_t v, size_t n)
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
    for (ky = 0; ky < g->k_h; ++ky, col += g->k_w * c) {
        const int32_t iy = iy0 + ky * g->dil_h;
        const int8_t *xr = xw + ((size_t)iy * g->w_in + ix0) * c;
        if (iy < 0 || iy >= g->h_in) {
            mcu_conv2d_s8_fill(col, p->x_zp, g->k_w * c);
        } else if (row_inside && g->dil_w == 1) {
            mcu_conv2d_s8_copy(col, xr, g->k_w * c);
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
    const int32_t mode = mcu_conv2d_s8_rq_mode(&p->rq, g->c_out);
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

/** The GEMM paths (pointwise, im2col, local); on ARMv6-M this frame holds their requantization table's storage
 * (one frame for the three, apart from the depthwise path's call chain). */
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
    const int32_t mode = mcu_conv2d_s8_rq_mode(&rq, c_out);
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
    const int32_t pixels = g->n * g->h_out * g->w_out, plain = mcu_requant_is_plain(&rq, g->c_out);
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
    default:
        mcu_conv2d_s8_general(p, x, y);
        break;
    }
}
