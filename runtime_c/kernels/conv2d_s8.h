#ifndef MCU_CONV2D_S8_H
#define MCU_CONV2D_S8_H
#include "mcu_rt.h"

/* Code paths (mcucomp/ops/conv2d_s8.py PATHS; `mcucomp show` names the one each layer takes), each its own file
 * and function: conv2d_s8_<path>.c, mcu_conv2d_s8_<path>. */
#define MCU_CONV2D_S8_GENERAL 0   /* any geometry and groups; no scratch */
#define MCU_CONV2D_S8_DEPTHWISE 1 /* group == c_in == c_out; no scratch */
#define MCU_CONV2D_S8_POINTWISE 2 /* 1x1, unpadded, group 1, any stride; no scratch */
#define MCU_CONV2D_S8_IM2COL 3    /* group 1; scratch: two pixels' windows (c_in * k_h * k_w each, rounded up to 4) */
#define MCU_CONV2D_S8_DIRECT 4    /* group 1; no scratch: windows read in place, padding from zrow */
#define MCU_CONV2D_S8_LOCAL 5     /* group 1, two windows of at most MCU_CONV2D_S8_LOCAL_COL bytes: im2col on the stack */
#define MCU_CONV2D_S8_DEPTHWISE_RING 6 /* depthwise in place (y == x), stride 1 on the same grid; no scratch */
#define MCU_CONV2D_S8_FEW_CHANNELS 7 /* group 1, c_in <= 4, no w_zp, small windows (below); no scratch */

/* Stack bytes of the local path's two gathered windows (mcucomp/ops/conv2d_s8.py LOCAL_COL). */
#define MCU_CONV2D_S8_LOCAL_COL 96

/* The few-channels path: taps of a window at most (mcucomp/ops/conv2d_s8.py FEW_TAPS; both windows fit the local
 * path's stack buffer), and stack bytes of its weight stream on DSP cores (FEW_STREAM: per group of four output
 * channels 8 + 4 * ceil(taps / 2) words). */
#define MCU_CONV2D_S8_FEW_TAPS 48
#define MCU_CONV2D_S8_FEW_STREAM 1536

typedef struct {
    mcu_conv_geom g;
    int32_t x_zp;
    const int32_t *w_zp; /* per output channel, or NULL for all zero */
    mcu_requant rq;
    int32_t path;         /* MCU_CONV2D_S8_*: the path the call's function runs (read by a debugger, not the C) */
    int32_t down;         /* pointwise, im2col, general: output pixels from the last down (else from the first up) */
    const int8_t *w;      /* weights arranged for the path (mcucomp/ops/conv2d_s8.py packed_weights) */
    const int32_t *kbias; /* bias[oc] - x_zp * sum_k (w[oc][k] - w_zp[oc]), per output channel */
    const int8_t *zrow;   /* direct path: k_w * c_in bytes of x_zp (the padding's taps); else NULL */
    int32_t rq_plain;     /* rq is float mode without div, every scale finite: mcu_requant_plain applies (compile
                           * time; last, so the fields before it keep their ARMv6-M load offsets) */
} mcu_conv2d_s8_params;

/* One file per path (conv2d_s8_<path>.c, its function mcu_conv2d_s8_<path>); the helpers below are shared by all of
 * them, the others by some (conv2d_s8_dot.h, _gemm.h, _window.h, _columns.h, _dw.h). */

/* The shared headers' static functions: each path file uses some of them. */
#if defined(__GNUC__)
#define MCU_CONV2D_S8_SHARED __attribute__((unused))
#else
#define MCU_CONV2D_S8_SHARED
#endif

/* Before a loop label that branches return to many times: a taken branch to a 32-bit instruction that is not word
 * aligned costs the M4 a cycle more (one 16-bit padding instruction on the way in instead: MOV r8, r8, 0x46c0, as
 * the cycle simulator's disassembler names NOP a `hint` its tables leave untimed). */
#define MCU_CONV2D_S8_ALIGN ".balignw 4, 0x46c0\n\t"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>

/** Four int8 from any address as one word (an unaligned LDR on cores with the DSP extension). */
static inline int32_t mcu_conv2d_s8_load4(const int8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/** Bytes 1 and 3 of v sign-extended into two int16 lanes: one SXTB16 with ROR #8 (gcc does not fold the rotation
 * of the ACLE form into the instruction, which costs one more in the inner loops). */
static inline int32_t mcu_conv2d_s8_odd(int32_t v)
{
#if defined(__GNUC__)
    int32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
    return r;
#else
    const uint32_t u = (uint32_t)v;
    return __sxtb16((int32_t)((u >> 8) | (u << 24)));
#endif
}

#endif

/* GCC otherwise keeps the per-output requantization out of line (one call per output) or inlines the rare modes
 * (MCU_INLINE, mcu_rt.h, for the common ones). */
#if defined(__GNUC__)
#define MCU_CONV2D_S8_OUTLINE __attribute__((noinline, unused))
#else
#define MCU_CONV2D_S8_OUTLINE
#endif

/** mcu_requant_apply out of line: fixed mode, div, or scales that are not finite (the inlined loops stay small).
 * Static in each file, so gcc knows which registers the call leaves alone (an extern call costs the GEMM loops
 * spills); `unused` for the files that include this header without calling it. */
static MCU_CONV2D_S8_OUTLINE int8_t mcu_conv2d_s8_requant_any(const mcu_requant *rq, int32_t acc, int32_t ch)
{
    return (int8_t)mcu_requant_apply(rq, acc, ch);
}

/** Requantize the accumulator of output channel ch: plain = p->rq_plain (mcu_conv2d_s8_params), decided at compile
 * time; the plain case inline (a few instructions), the others by a call. */
static MCU_INLINE int8_t mcu_conv2d_s8_requant(const mcu_requant *rq, int32_t plain, int32_t acc, int32_t ch)
{
#if defined(__arm__) && !defined(__ARM_FP) /* soft float: fixed mode (the default there) with double rounding inline */
    (void)plain;
    if (rq->mult != NULL && !rq->single_round) {
        return (int8_t)mcu_requant_fixed_double(rq, acc, ch);
    }
    return mcu_conv2d_s8_requant_any(rq, acc, ch);
#else
    return plain ? (int8_t)mcu_requant_plain(rq, acc, ch) : mcu_conv2d_s8_requant_any(rq, acc, ch);
#endif
}

#if defined(__GNUC__) && defined(__thumb__) && !defined(__thumb2__)
/* The ARMv6-M naked functions' entry and exit (AAPCS): r4-r7 and lr, then r8-r11 through the low registers, 36 bytes pushed;
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
/* ARMv6-M assembly of the GEMM and depthwise paths: one fixed-mode (double rounding) output. The accumulator x in
 * r3 times the channel's multiplier (mh = r0, ml = r1: mcu_split16) as mcu_doubling_high_mul computes it (r6, r7
 * scratch, r11 = 2^30), leaving R in r3 and its sign in the flags; then RoundingDivideByPOT by e = r2 (ip =
 * 2^e >> 1) half away from zero: |R| + ip shifted right (both below 2^31, so no carry) and the sign put back, the
 * magnitude clamped first to r9 = qmax - zp (R >= 0) or r8 = zp - qmin (R < 0), which is the saturation to
 * [qmin, qmax] for qmin <= zp <= qmax; r10 = zp added, then STORE (r3 the output byte; r4, r5 are left alone). */
#define MCU_CONV2D_S8_V6M_RQ_OUT(STORE)                                                                            \
    "sxth r6, r3\n\t"                                                                                              \
    "asrs r3, r3, #15\n\t"                                                                                         \
    "adds r3, #1\n\t"                                                                                              \
    "asrs r3, r3, #1\n\t"                                                                                          \
    "mov r7, r6\n\t"                                                                                               \
    "muls r7, r1\n\t" /* xl ml */                                                                                  \
    "add r7, r11\n\t"                                                                                              \
    "lsrs r7, r7, #16\n\t"                                                                                         \
    "muls r6, r0\n\t" /* xl mh */                                                                                  \
    "adds r7, r6\n\t"                                                                                              \
    "mov r6, r3\n\t"                                                                                               \
    "muls r6, r1\n\t" /* xh ml */                                                                                  \
    "adds r7, r6\n\t"                                                                                              \
    "asrs r7, r7, #15\n\t"                                                                                         \
    "muls r3, r0\n\t" /* xh mh */                                                                                  \
    "lsls r3, r3, #1\n\t"                                                                                          \
    "adds r3, r3, r7\n\t"                                                                                          \
    "bmi 2f\n\t"                                                                                                   \
    "add r3, ip\n\t"                                                                                               \
    "lsrs r3, r2\n\t"                                                                                              \
    "cmp r3, r9\n\t"                                                                                               \
    "bls 1f\n\t"                                                                                                   \
    "mov r3, r9\n"                                                                                                 \
    "1:\n\t"                                                                                                       \
    "add r3, r10\n\t"                                                                                              \
    STORE                                                                                                          \
    "b 3f\n"                                                                                                       \
    "2:\n\t"                                                                                                       \
    "negs r3, r3\n\t"                                                                                              \
    "add r3, ip\n\t"                                                                                               \
    "lsrs r3, r2\n\t"                                                                                              \
    "cmp r3, r8\n\t"                                                                                               \
    "bls 1f\n\t"                                                                                                   \
    "mov r3, r8\n"                                                                                                 \
    "1:\n\t"                                                                                                       \
    "negs r3, r3\n\t"                                                                                              \
    "add r3, r10\n\t"                                                                                              \
    STORE                                                                                                          \
    "3:\n\t"
#endif

/* Taps lo .. hi - 1 of a k-tap window starting at `start` (dilation dil) fall inside an input of length len. */
static inline void mcu_conv2d_s8_valid_taps(int32_t start, int32_t len, int32_t k, int32_t dil, int32_t *lo, int32_t *hi)
{
    *lo = start >= 0 ? 0 : (-start + dil - 1) / dil;
    *hi = len - start <= 0 ? 0 : (len - start + dil - 1) / dil;
    if (*hi > k) {
        *hi = k;
    }
    if (*lo > *hi) {
        *lo = *hi;
    }
}

#endif
