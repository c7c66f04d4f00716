#include "conv2d_s8_gemm_v6m.h"
#include "conv2d_s8_dot.h" /* the 2x2 block's ARMv6-M tap macros */

#if defined(__arm__) && !defined(__ARM_FP) && defined(__GNUC__) && defined(__thumb__) && !defined(__thumb2__)
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
__attribute__((naked, noinline)) void
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
__attribute__((naked, noinline)) void mcu_conv2d_s8_gemm_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
                                                                    MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_V6M_BLOCK2X2(
            MCU_CONV2D_S8_V6M_RQ_CHANNEL(4, "")
            MCU_CONV2D_S8_V6M_RQ_CHANNEL(8, "ldr r3, [sp, #24]\n\tldr r4, [sp, #28]\n\t")));
}

/** mcu_conv2d_s8_gemm_v6m for a lone pixel (c0 == c1, y0 == y1): the 1x2 block (MCU_CONV2D_S8_V6M_TAP1) and one
 * output per channel. */
__attribute__((naked, noinline)) void mcu_conv2d_s8_gemm1_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
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
__attribute__((naked, noinline)) void mcu_conv2d_s8_gemm_t_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
                                                                      MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_V6M_BLOCK2X2(
            MCU_CONV2D_S8_V6M_RQ_CHANNEL_T("")
            MCU_CONV2D_S8_V6M_RQ_CHANNEL_T("ldr r3, [sp, #24]\n\tldr r4, [sp, #28]\n\t")));
}

/** mcu_conv2d_s8_gemm1_v6m with the requantization table a->rqt. */
__attribute__((naked, noinline)) void mcu_conv2d_s8_gemm1_t_v6m(const mcu_conv2d_s8_gemm_v6m_args *a
                                                                       MCU_CONV2D_S8_REG_ARG)
{
    __asm__(".syntax unified\n\t"
            MCU_CONV2D_S8_V6M_BLOCK1X2(
            MCU_CONV2D_S8_V6M_RQ_HEAD_T("")
            MCU_CONV2D_S8_V6M_RQ_OUT(MCU_CONV2D_S8_V6M_RQ_Y0)
            MCU_CONV2D_S8_V6M_RQ_HEAD_T("ldr r3, [sp, #24]\n\t")
            MCU_CONV2D_S8_V6M_RQ_OUT(MCU_CONV2D_S8_V6M_RQ_Y0)));
}
#endif
