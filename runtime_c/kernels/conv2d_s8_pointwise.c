#include "conv2d_s8_pointwise.h"
#include "conv2d_s8_gemm.h"
#include "conv2d_s8_window.h"

#if MCU_CONV2D_S8_BLOCKS_ASM
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
static void mcu_conv2d_s8_pointwise_pairs(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, int32_t *rqt_store)
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

void mcu_conv2d_s8_pointwise(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch)
{
    MCU_CONV2D_S8_RQT_STORE(store);
    (void)scratch;
    mcu_conv2d_s8_pointwise_pairs(p, x, y, store);
}
