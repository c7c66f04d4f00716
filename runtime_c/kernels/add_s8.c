#include "add_s8.h"
#include <math.h>
#if defined(__ARM_FEATURE_SAT)
#include <arm_acle.h>
#endif

/* The per-mode run loops are MCU_INLINE (GCC keeps them out of line otherwise): each call site's constant strides
 * and flags specialise the loop (the flat case walks both inputs with post-incremented loads). */
#if defined(__GNUC__)
#define MCU_ADD_S8_OUTLINE __attribute__((noinline))
#else
#define MCU_ADD_S8_OUTLINE
#endif

/* (v << left) * mult / 2^(31 - shift), rounded half up once, for |v| <= 255, left == 20, 0 <= mult < 2^31 and
 * -31 <= shift <= 0 (TFLite's QuantizeMultiplier range), in 32-bit arithmetic (a 64-bit multiply is a library call
 * on Cortex-M0+). With s = 31 - left - shift, 11 <= s <= 42, it is floor((v * mult + 2^(s-1)) / 2^s); splitting
 * mult = mh * 2^15 + ml makes v * mult = A * 2^15 + B with |A| < 2^24, |B| < 2^23:
 * s <= 15: (A << (15 - s)) + floor((B + 2^(s-1)) / 2^s), since A * 2^15 is a multiple of 2^s;
 * s >= 16: floor((A + 2^(s-16) + floor(B / 2^15)) / 2^(s-15)) (nested floor divisions). */
static MCU_INLINE int32_t add_rescale(int32_t v, int32_t left, int32_t mult, int32_t shift)
{
    const int32_t s = 31 - left - shift;
    const int32_t a = v * (mult >> 15), b = v * (mult & 0x7fff);
    if (s <= 15) {
        return a * (1 << (15 - s)) + ((b + (1 << (s - 1))) >> s);
    }
    return (a + (1 << (s - 16)) + (b >> 15)) >> (s - 15);
}

/* y[i] = a[i * sa] + b[i * sb] for i < n in the node's own arithmetic; sa and sb are 0 (broadcast) or 1.
 * Parameters are read into locals first: y is int8_t, which may alias *p. */
static MCU_ADD_S8_OUTLINE void add_exact(const mcu_add_s8_params *p, const int8_t *a, int32_t sa, const int8_t *b,
                                         int32_t sb, int8_t *y, int32_t n)
{
    int32_t i;
    if (p->mode == MCU_ADD_S8_FIXED) {
        /* TFLite int8 ADD as LiteRT's builtin kernel computes it: each operand shifted left by left_shift (20) and
         * rescaled with one rounding, the sum rescaled by MultiplyByQuantizedMultiplier */
        const mcu_rq_fixed f = mcu_rq_fixed_unpack(p->y_mult, -p->y_shift);
        const int32_t a_zp = p->a_zp, b_zp = p->b_zp, y_zp = p->y_zp, left = p->left_shift;
        const int32_t a_mult = p->a_mult, a_shift = p->a_shift, b_mult = p->b_mult, b_shift = p->b_shift;
        const int32_t lo = p->qmin - y_zp, hi = p->qmax - y_zp;
        for (i = 0; i < n; ++i, a += sa, b += sb) {
            const int32_t xa = add_rescale(*a - a_zp, left, a_mult, a_shift);
            const int32_t xb = add_rescale(*b - b_zp, left, b_mult, b_shift);
            y[i] = (int8_t)(mcu_sat(mcu_requant_scale_fixed(xa + xb, f), lo, hi) + y_zp);
        }
    } else if (p->mode == MCU_ADD_S8_QLINEAR) {
        /* MLAS QLinearAdd: the zero points live in `fixed`; b's term first, then a's; values in the integer type
         * onnxruntime uses for each tensor, since the float roundings depend on it. Rounding before the integer
         * clamp equals clamping first (rounding is monotonic, the bounds are integers). */
        const int32_t a_off = p->a_off, b_off = p->b_off, y_off = p->y_off;
        const int32_t lo = p->qmin + y_off, hi = p->qmax + y_off;
        const float r_ay = p->r_ay, r_by = p->r_by, fixed = p->fixed;
        for (i = 0; i < n; ++i, a += sa, b += sb) {
            const float v = fmaf((float)(*a + a_off), r_ay, fmaf((float)(*b + b_off), r_by, fixed));
            y[i] = (int8_t)(mcu_sat(mcu_round_even_sat(v), lo, hi) - y_off);
        }
    } else {
        /* DequantizeLinear both (one product each), the float sum / y_scale, QuantizeLinear */
        const int32_t a_zp = p->a_zp, b_zp = p->b_zp, y_zp = p->y_zp;
        const int32_t lo = p->qmin - y_zp, hi = p->qmax - y_zp;
        const float a_scale = p->a_scale, b_scale = p->b_scale, y_scale = p->y_scale;
        for (i = 0; i < n; ++i, a += sa, b += sb) {
            const float v = ((float)(*a - a_zp) * a_scale + (float)(*b - b_zp) * b_scale) / y_scale;
            y[i] = (int8_t)(mcu_sat(mcu_round_even_sat(v), lo, hi) + y_zp);
        }
    }
}

/* v clamped to [lo, hi]: one SSAT for the full int8 range (constant bounds at the call site) where the core has it. */
static MCU_INLINE int32_t add_clamp(int32_t v, int32_t lo, int32_t hi)
{
#if defined(__ARM_FEATURE_SAT)
    if (lo == -128 && hi == 127) {
        return __ssat(v, 8);
    }
#endif
    return mcu_sat(v, lo, hi);
}

/* The linear form with its tie test over one run: two multiply-adds, a test and a shift per element; an element near
 * a rounding tie leaves the inner loop for add_exact (rare: the loop keeps its values in registers). */
static MCU_INLINE void add_linear_ties(const mcu_add_s8_params *p, const int8_t *a, int32_t sa,
                                              const int8_t *b, int32_t sb, int8_t *y, int32_t n, int32_t lo,
                                              int32_t hi)
{
    const int32_t ka = p->lin_a, kb = p->lin_b, kc = p->lin_c;
    const uint32_t near = p->lin_near;
    int8_t *const y_end = y + n;
    while (y < y_end) {
        for (; y < y_end; ++y, a += sa, b += sb) {
            const int32_t x = ka * *a + (kb * *b + kc);
            if (MCU_RARE(((uint32_t)x << (32 - MCU_ADD_S8_TIES_SHIFT)) < near)) {
                break;
            }
            *y = (int8_t)add_clamp(x >> MCU_ADD_S8_TIES_SHIFT, lo, hi);
        }
        if (y < y_end) {
            add_exact(p, a, 0, b, 0, y, 1);
            ++y;
            a += sa;
            b += sb;
        }
    }
}

/* The exact linear form of one code pair (in [lo, hi]). */
static MCU_INLINE int32_t add_linear1(int32_t a, int32_t b, int32_t ka, int32_t kb, int32_t kc, int32_t lo,
                                             int32_t hi)
{
    return add_clamp((ka * a + (kb * b + kc)) >> MCU_ADD_S8_EXACT_SHIFT, lo, hi);
}

/* The exact linear form of four code pairs a[k * sa], b[k * sb] into y[0..3]; contiguous inputs are read a word
 * (four codes) at a time where unaligned word loads are allowed, unpacked by sign-extending byte extracts. */
static MCU_INLINE void add_linear4(const int8_t *a, int32_t sa, const int8_t *b, int32_t sb, int32_t ka,
                                          int32_t kb, int32_t kc, int8_t *y, int32_t lo, int32_t hi)
{
#if defined(__ARM_FEATURE_UNALIGNED)
    if (sa == 1 && sb == 1) {
        uint32_t wa, wb;
        memcpy(&wa, a, 4);
        memcpy(&wb, b, 4);
        uint32_t wy = (uint32_t)add_linear1((int8_t)(wa & 0xFFu), (int8_t)(wb & 0xFFu), ka, kb, kc, lo, hi);
        /* bytes 1-3 inserted with BFI (GCC masks and ORs them instead); byte 3 replaces the sign bits */
        __asm__("bfi %0, %1, #8, #8" : "+r"(wy)
                : "r"(add_linear1((int8_t)((wa >> 8) & 0xFFu), (int8_t)((wb >> 8) & 0xFFu), ka, kb, kc, lo, hi)));
        __asm__("bfi %0, %1, #16, #8" : "+r"(wy)
                : "r"(add_linear1((int8_t)((wa >> 16) & 0xFFu), (int8_t)((wb >> 16) & 0xFFu), ka, kb, kc, lo, hi)));
        __asm__("bfi %0, %1, #24, #8" : "+r"(wy)
                : "r"(add_linear1((int8_t)(wa >> 24), (int8_t)(wb >> 24), ka, kb, kc, lo, hi)));
        memcpy(y, &wy, 4); /* one store: the inputs' four codes are read already (in place allowed) */
        return;
    }
#endif
    y[0] = (int8_t)add_linear1(a[0], b[0], ka, kb, kc, lo, hi);
    y[1] = (int8_t)add_linear1(a[sa], b[sb], ka, kb, kc, lo, hi);
    y[2] = (int8_t)add_linear1(a[2 * sa], b[2 * sb], ka, kb, kc, lo, hi);
    y[3] = (int8_t)add_linear1(a[3 * sa], b[3 * sb], ka, kb, kc, lo, hi);
}

/* The exact linear form over one run: two multiply-adds and a saturating shift per element, four per iteration. */
static MCU_INLINE void add_linear(const mcu_add_s8_params *p, const int8_t *a, int32_t sa, const int8_t *b,
                                         int32_t sb, int8_t *y, int32_t n, int32_t lo, int32_t hi)
{
    const int32_t ka = p->lin_a, kb = p->lin_b, kc = p->lin_c;
    int32_t i;
    for (i = 0; i + 4 <= n; i += 4, a += 4 * sa, b += 4 * sb) {
        add_linear4(a, sa, b, sb, ka, kb, kc, y + i, lo, hi);
    }
    for (; i < n; ++i, a += sa, b += sb) {
        y[i] = (int8_t)add_linear1(*a, *b, ka, kb, kc, lo, hi);
    }
}

/* One run of the innermost (collapsed) dim: the exact linear form or the one with a tie test where the compiler
 * found one, specialised for equal shapes (one run over the whole tensor, both inputs contiguous) and for the full
 * int8 range (constant bounds: one saturating instruction on Armv7-M and later), else the node's own arithmetic. */
static void add_row(const mcu_add_s8_params *p, const int8_t *a, int32_t sa, const int8_t *b, int32_t sb, int8_t *y,
                    int32_t n)
{
    const int32_t full = p->qmin == -128 && p->qmax == 127, flat = sa == 1 && sb == 1;
    if (p->lin == MCU_ADD_S8_LIN_EXACT) {
        if (flat && full) {
            add_linear(p, a, 1, b, 1, y, n, -128, 127);
        } else {
            add_linear(p, a, sa, b, sb, y, n, p->qmin, p->qmax);
        }
    } else if (p->lin == MCU_ADD_S8_LIN_TIES) {
        if (flat && full) {
            add_linear_ties(p, a, 1, b, 1, y, n, -128, 127);
        } else {
            add_linear_ties(p, a, sa, b, sb, y, n, p->qmin, p->qmax);
        }
    } else {
        add_exact(p, a, sa, b, sb, y, n);
    }
}

void mcu_add_s8(const mcu_add_s8_params *p, const int8_t *a, const int8_t *b, int8_t *y)
{
    const mcu_bcast *bc = &p->bc;
    const int32_t last = bc->rank - 1, n = bc->dims[last];
    int32_t idx[MCU_MAX_RANK] = {0};
    int32_t ia = 0, ib = 0, rows = 1, r, d;
    for (d = 0; d < last; ++d) {
        rows *= bc->dims[d];
    }
    for (r = 0; r < rows; ++r, y += n) {
        add_row(p, a + ia, bc->a_strides[last], b + ib, bc->b_strides[last], y, n);
        for (d = last - 1; d >= 0; --d) { /* the outer dims' counter */
            ia += bc->a_strides[d];
            ib += bc->b_strides[d];
            if (++idx[d] < bc->dims[d]) {
                break;
            }
            ia -= bc->a_strides[d] * bc->dims[d];
            ib -= bc->b_strides[d] * bc->dims[d];
            idx[d] = 0;
        }
    }
}
