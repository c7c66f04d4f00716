#include "matvec_f32.h"
#include <math.h>

#if !MCU_F32_FUSED && defined(__ARM_FP) && defined(__thumb2__)
/* The separate form on a core with an FPU: GCC's schedule of the C loops leaves weight loads apart from the load runs
 * (2 cycles each instead of 1) and tests the loop every 16 MACs, 3.7 cycles per MAC on the Cortex-M4. These loops take
 * 32 weights per turn in two VLDMs (1 + 16 cycles each), then each VMUL into its weight register and each VADD onto
 * its accumulator in column order: the C loops' arithmetic, 3.3 cycles per MAC. acc holds the accumulators. */
#define MCU_MATVEC_F32_ASM 1

/* 8 rows, 4 columns a turn: x in s8-s11, accumulators in s0-s7. */
static void mcu_matvec_f32_turns8(const float *w, const float *x, int32_t turns, float *acc)
{
    __asm__ volatile(
        "vldmia %[acc], {s0-s7}\n"
        "1:\n"
        "vldmia %[x]!, {s8-s11}\n"
        "vldmia %[w]!, {s16-s31}\n"
        "vmul.f32 s16, s16, s8\n vmul.f32 s17, s17, s8\n vmul.f32 s18, s18, s8\n vmul.f32 s19, s19, s8\n"
        "vmul.f32 s20, s20, s8\n vmul.f32 s21, s21, s8\n vmul.f32 s22, s22, s8\n vmul.f32 s23, s23, s8\n"
        "vmul.f32 s24, s24, s9\n vmul.f32 s25, s25, s9\n vmul.f32 s26, s26, s9\n vmul.f32 s27, s27, s9\n"
        "vmul.f32 s28, s28, s9\n vmul.f32 s29, s29, s9\n vmul.f32 s30, s30, s9\n vmul.f32 s31, s31, s9\n"
        "vadd.f32 s0, s0, s16\n vadd.f32 s1, s1, s17\n vadd.f32 s2, s2, s18\n vadd.f32 s3, s3, s19\n"
        "vadd.f32 s4, s4, s20\n vadd.f32 s5, s5, s21\n vadd.f32 s6, s6, s22\n vadd.f32 s7, s7, s23\n"
        "vadd.f32 s0, s0, s24\n vadd.f32 s1, s1, s25\n vadd.f32 s2, s2, s26\n vadd.f32 s3, s3, s27\n"
        "vadd.f32 s4, s4, s28\n vadd.f32 s5, s5, s29\n vadd.f32 s6, s6, s30\n vadd.f32 s7, s7, s31\n"
        "vldmia %[w]!, {s16-s31}\n"
        "vmul.f32 s16, s16, s10\n vmul.f32 s17, s17, s10\n vmul.f32 s18, s18, s10\n vmul.f32 s19, s19, s10\n"
        "vmul.f32 s20, s20, s10\n vmul.f32 s21, s21, s10\n vmul.f32 s22, s22, s10\n vmul.f32 s23, s23, s10\n"
        "vmul.f32 s24, s24, s11\n vmul.f32 s25, s25, s11\n vmul.f32 s26, s26, s11\n vmul.f32 s27, s27, s11\n"
        "vmul.f32 s28, s28, s11\n vmul.f32 s29, s29, s11\n vmul.f32 s30, s30, s11\n vmul.f32 s31, s31, s11\n"
        "vadd.f32 s0, s0, s16\n vadd.f32 s1, s1, s17\n vadd.f32 s2, s2, s18\n vadd.f32 s3, s3, s19\n"
        "vadd.f32 s4, s4, s20\n vadd.f32 s5, s5, s21\n vadd.f32 s6, s6, s22\n vadd.f32 s7, s7, s23\n"
        "vadd.f32 s0, s0, s24\n vadd.f32 s1, s1, s25\n vadd.f32 s2, s2, s26\n vadd.f32 s3, s3, s27\n"
        "vadd.f32 s4, s4, s28\n vadd.f32 s5, s5, s29\n vadd.f32 s6, s6, s30\n vadd.f32 s7, s7, s31\n"
        "subs %[n], %[n], #1\n"
        "bne 1b\n"
        "vstmia %[acc], {s0-s7}\n"
        : [w] "+r"(w), [x] "+r"(x), [n] "+r"(turns)
        : [acc] "r"(acc)
        : "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s16", "s17", "s18", "s19",
          "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30", "s31", "cc", "memory");
}

/* 4 rows, 8 columns a turn: x in s8-s15, accumulators in s0-s3. */
static void mcu_matvec_f32_turns4(const float *w, const float *x, int32_t turns, float *acc)
{
    __asm__ volatile(
        "vldmia %[acc], {s0-s3}\n"
        "1:\n"
        "vldmia %[x]!, {s8-s15}\n"
        "vldmia %[w]!, {s16-s31}\n"
        "vmul.f32 s16, s16, s8\n vmul.f32 s17, s17, s8\n vmul.f32 s18, s18, s8\n vmul.f32 s19, s19, s8\n"
        "vmul.f32 s20, s20, s9\n vmul.f32 s21, s21, s9\n vmul.f32 s22, s22, s9\n vmul.f32 s23, s23, s9\n"
        "vmul.f32 s24, s24, s10\n vmul.f32 s25, s25, s10\n vmul.f32 s26, s26, s10\n vmul.f32 s27, s27, s10\n"
        "vmul.f32 s28, s28, s11\n vmul.f32 s29, s29, s11\n vmul.f32 s30, s30, s11\n vmul.f32 s31, s31, s11\n"
        "vadd.f32 s0, s0, s16\n vadd.f32 s1, s1, s17\n vadd.f32 s2, s2, s18\n vadd.f32 s3, s3, s19\n"
        "vadd.f32 s0, s0, s20\n vadd.f32 s1, s1, s21\n vadd.f32 s2, s2, s22\n vadd.f32 s3, s3, s23\n"
        "vadd.f32 s0, s0, s24\n vadd.f32 s1, s1, s25\n vadd.f32 s2, s2, s26\n vadd.f32 s3, s3, s27\n"
        "vadd.f32 s0, s0, s28\n vadd.f32 s1, s1, s29\n vadd.f32 s2, s2, s30\n vadd.f32 s3, s3, s31\n"
        "vldmia %[w]!, {s16-s31}\n"
        "vmul.f32 s16, s16, s12\n vmul.f32 s17, s17, s12\n vmul.f32 s18, s18, s12\n vmul.f32 s19, s19, s12\n"
        "vmul.f32 s20, s20, s13\n vmul.f32 s21, s21, s13\n vmul.f32 s22, s22, s13\n vmul.f32 s23, s23, s13\n"
        "vmul.f32 s24, s24, s14\n vmul.f32 s25, s25, s14\n vmul.f32 s26, s26, s14\n vmul.f32 s27, s27, s14\n"
        "vmul.f32 s28, s28, s15\n vmul.f32 s29, s29, s15\n vmul.f32 s30, s30, s15\n vmul.f32 s31, s31, s15\n"
        "vadd.f32 s0, s0, s16\n vadd.f32 s1, s1, s17\n vadd.f32 s2, s2, s18\n vadd.f32 s3, s3, s19\n"
        "vadd.f32 s0, s0, s20\n vadd.f32 s1, s1, s21\n vadd.f32 s2, s2, s22\n vadd.f32 s3, s3, s23\n"
        "vadd.f32 s0, s0, s24\n vadd.f32 s1, s1, s25\n vadd.f32 s2, s2, s26\n vadd.f32 s3, s3, s27\n"
        "vadd.f32 s0, s0, s28\n vadd.f32 s1, s1, s29\n vadd.f32 s2, s2, s30\n vadd.f32 s3, s3, s31\n"
        "subs %[n], %[n], #1\n"
        "bne 1b\n"
        "vstmia %[acc], {s0-s3}\n"
        : [w] "+r"(w), [x] "+r"(x), [n] "+r"(turns)
        : [acc] "r"(acc)
        : "s0", "s1", "s2", "s3", "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15", "s16", "s17", "s18", "s19",
          "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27", "s28", "s29", "s30", "s31", "cc", "memory");
}
#endif

/* Eight rows at a time: x[k] is loaded once for the block's eight accumulators, whose weights are the next eight
 * floats of the packed stream (contiguous loads). Register blocking over rows leaves each row's order alone. */
void mcu_matvec_f32(const float *w, int32_t rows, int32_t cols, const float *x, const float *init, float *y)
{
    int32_t j = 0, k;
    for (; j + MCU_MATVEC_F32_BLOCK <= rows; j += MCU_MATVEC_F32_BLOCK) {
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, a4 = 0.0f, a5 = 0.0f, a6 = 0.0f, a7 = 0.0f;
        if (init != NULL) {
            a0 = init[j], a1 = init[j + 1], a2 = init[j + 2], a3 = init[j + 3];
            a4 = init[j + 4], a5 = init[j + 5], a6 = init[j + 6], a7 = init[j + 7];
        }
        k = 0;
#ifdef MCU_MATVEC_F32_ASM
        if (cols >= 4) {
            float acc[MCU_MATVEC_F32_BLOCK];
            acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3, acc[4] = a4, acc[5] = a5, acc[6] = a6, acc[7] = a7;
            mcu_matvec_f32_turns8(w, x, cols / 4, acc);
            a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], a4 = acc[4], a5 = acc[5], a6 = acc[6], a7 = acc[7];
            k = cols / 4 * 4;
            w += (size_t)k * MCU_MATVEC_F32_BLOCK;
        }
#endif
        for (; k + 2 <= cols; k += 2) { /* two columns a turn: one loop test per 16 MACs */
            const float v = x[k], u = x[k + 1];
            a0 = MCU_F32_MAC(a0, w[0], v);
            a1 = MCU_F32_MAC(a1, w[1], v);
            a2 = MCU_F32_MAC(a2, w[2], v);
            a3 = MCU_F32_MAC(a3, w[3], v);
            a4 = MCU_F32_MAC(a4, w[4], v);
            a5 = MCU_F32_MAC(a5, w[5], v);
            a6 = MCU_F32_MAC(a6, w[6], v);
            a7 = MCU_F32_MAC(a7, w[7], v);
            a0 = MCU_F32_MAC(a0, w[8], u);
            a1 = MCU_F32_MAC(a1, w[9], u);
            a2 = MCU_F32_MAC(a2, w[10], u);
            a3 = MCU_F32_MAC(a3, w[11], u);
            a4 = MCU_F32_MAC(a4, w[12], u);
            a5 = MCU_F32_MAC(a5, w[13], u);
            a6 = MCU_F32_MAC(a6, w[14], u);
            a7 = MCU_F32_MAC(a7, w[15], u);
            w += 2 * MCU_MATVEC_F32_BLOCK;
        }
        if (k < cols) {
            const float v = x[k];
            a0 = MCU_F32_MAC(a0, w[0], v);
            a1 = MCU_F32_MAC(a1, w[1], v);
            a2 = MCU_F32_MAC(a2, w[2], v);
            a3 = MCU_F32_MAC(a3, w[3], v);
            a4 = MCU_F32_MAC(a4, w[4], v);
            a5 = MCU_F32_MAC(a5, w[5], v);
            a6 = MCU_F32_MAC(a6, w[6], v);
            a7 = MCU_F32_MAC(a7, w[7], v);
            w += MCU_MATVEC_F32_BLOCK;
        }
        y[j] = a0, y[j + 1] = a1, y[j + 2] = a2, y[j + 3] = a3;
        y[j + 4] = a4, y[j + 5] = a5, y[j + 6] = a6, y[j + 7] = a7;
    }
    if (rows - j >= MCU_MATVEC_F32_HALF) {
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        if (init != NULL) {
            a0 = init[j], a1 = init[j + 1], a2 = init[j + 2], a3 = init[j + 3];
        }
        k = 0;
#ifdef MCU_MATVEC_F32_ASM
        if (cols >= 8) {
            float acc[MCU_MATVEC_F32_HALF];
            acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
            mcu_matvec_f32_turns4(w, x, cols / 8, acc);
            a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
            k = cols / 8 * 8;
            w += (size_t)k * MCU_MATVEC_F32_HALF;
        }
#endif
        for (; k < cols; ++k) {
            const float v = x[k];
            a0 = MCU_F32_MAC(a0, w[0], v);
            a1 = MCU_F32_MAC(a1, w[1], v);
            a2 = MCU_F32_MAC(a2, w[2], v);
            a3 = MCU_F32_MAC(a3, w[3], v);
            w += MCU_MATVEC_F32_HALF;
        }
        y[j] = a0, y[j + 1] = a1, y[j + 2] = a2, y[j + 3] = a3;
        j += MCU_MATVEC_F32_HALF;
    }
    for (; j < rows; ++j) {
        float acc = init != NULL ? init[j] : 0.0f;
        for (k = 0; k < cols; ++k) {
            acc = MCU_F32_MAC(acc, w[k], x[k]);
        }
        y[j] = acc;
        w += cols;
    }
}
