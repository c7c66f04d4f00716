#ifndef MCU_CONV2D_S8_GEMM_H
#define MCU_CONV2D_S8_GEMM_H
#include "conv2d_s8_dot.h"

/* The GEMM block of the GEMM paths: requantizing stores, the block loops (DSP assembly with an FPU, ARMv6-M
 * naked functions, portable C) and their dispatch. */

/* How the GEMM paths requantize, decided once per call: MCU_CONV2D_S8_RQ_ANY (by a call: fixed mode, div, scales
 * that are not finite), _PLAIN (mcu_requant_plain_scaled inline), _S8 (plain over the full int8 range: one SSAT). */
#define MCU_CONV2D_S8_RQ_ANY 0
#define MCU_CONV2D_S8_RQ_PLAIN 1
#define MCU_CONV2D_S8_RQ_S8 2

/** The requantization mode (MCU_CONV2D_S8_RQ_*) of p's rq. */
MCU_CONV2D_S8_SHARED
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
__attribute__((naked, noinline, unused)) static void
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
__attribute__((naked, noinline, unused)) static void mcu_conv2d_s8_gemm_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
                                                                    MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_V6M_BLOCK2X2(
            MCU_CONV2D_S8_V6M_RQ_CHANNEL(4, "")
            MCU_CONV2D_S8_V6M_RQ_CHANNEL(8, "ldr r3, [sp, #24]\n\tldr r4, [sp, #28]\n\t")));
}

/** mcu_conv2d_s8_gemm_v6m for a lone pixel (c0 == c1, y0 == y1): the 1x2 block (MCU_CONV2D_S8_V6M_TAP1) and one
 * output per channel. */
__attribute__((naked, noinline, unused)) static void mcu_conv2d_s8_gemm1_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
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
__attribute__((naked, noinline, unused)) static void mcu_conv2d_s8_gemm_t_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
                                                                      MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_V6M_BLOCK2X2(
            MCU_CONV2D_S8_V6M_RQ_CHANNEL_T("")
            MCU_CONV2D_S8_V6M_RQ_CHANNEL_T("ldr r3, [sp, #24]\n\tldr r4, [sp, #28]\n\t")));
}

/** mcu_conv2d_s8_gemm1_v6m with the requantization table a->rqt. */
__attribute__((naked, noinline, unused)) static void mcu_conv2d_s8_gemm1_t_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
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
MCU_CONV2D_S8_SHARED
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

MCU_CONV2D_S8_SHARED
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
MCU_CONV2D_S8_SHARED
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
MCU_CONV2D_S8_SHARED
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

/* Declares store, the storage of mcu_conv2d_s8_rq_table on the path function's frame (ARMv6-M; elsewhere NULL). */
#if defined(MCU_CONV2D_S8_GEMM_V6M)
#define MCU_CONV2D_S8_RQT_STORE(store) int32_t store[4 * MCU_CONV2D_S8_RQT_CHANNELS]
#else
#define MCU_CONV2D_S8_RQT_STORE(store) int32_t *const store = NULL
#endif

#endif
