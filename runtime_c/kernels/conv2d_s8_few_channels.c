#include "conv2d_s8_few_channels.h"
#include "conv2d_s8_columns.h"

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

/* See above; elsewhere the local path (the same weights). */
void mcu_conv2d_s8_few_channels(const mcu_conv2d_s8_params *p, const int8_t *x, int8_t *y, void *scratch)
{
    (void)scratch;
#if MCU_CONV2D_S8_BLOCKS_ASM
    if (p->w_zp == NULL && mcu_conv2d_s8_rq_mode(p) == MCU_CONV2D_S8_RQ_S8) {
        mcu_conv2d_s8_few_dsp(p, x, y);
        return;
    }
#endif
    mcu_conv2d_s8_local_pairs(p, x, y);
}
