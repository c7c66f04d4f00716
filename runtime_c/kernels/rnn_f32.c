#include "rnn_f32.h"
#include "matvec_f32.h"
#include "mcu_math.h"
#include <math.h>

static float mcu_rnn_f32_act(int32_t code, float alpha, float beta, float v)
{
    switch (code) {
    case MCU_RNN_ACT_SIGMOID:
        return mcu_sigmoidf(v);
    case MCU_RNN_ACT_TANH:
        return mcu_tanhf(v);
    case MCU_RNN_ACT_RELU:
        return v > 0.0f ? v : 0.0f;
    case MCU_RNN_ACT_AFFINE:
        return alpha * v + beta;
    case MCU_RNN_ACT_LEAKY_RELU:
        return v >= 0.0f ? v : alpha * v;
    case MCU_RNN_ACT_THRESHOLDED_RELU:
        return v > alpha ? v : 0.0f;
    case MCU_RNN_ACT_SCALED_TANH:
        return alpha * mcu_tanhf(beta * v);
    case MCU_RNN_ACT_HARD_SIGMOID:
        return mcu_clampf(alpha * v + beta, 0.0f, 1.0f);
    case MCU_RNN_ACT_ELU:
        return mcu_eluf(v, alpha);
    case MCU_RNN_ACT_SOFTSIGN:
        return v / (1.0f + fabsf(v));
    default:
        return mcu_softplusf(v);
    }
}

/* Activation k (0: f, 1: g, 2: h) of direction d over v[0 .. n - 1] in place, each bounded to [-clip, clip] first
 * when clip > 0: one dispatch per gate part and step, the cells' usual sigmoid and tanh inlined in their loops. */
static void mcu_rnn_f32_acts(const mcu_rnn_f32_params *p, int32_t d, int32_t k, float clip, float *v, int32_t n)
{
    const int32_t code = p->act[d][k];
    int32_t j;
    if (clip > 0.0f) {
        for (j = 0; j < n; ++j) {
            v[j] = mcu_clampf(v[j], -clip, clip);
        }
    }
    if (code == MCU_RNN_ACT_SIGMOID) {
        for (j = 0; j < n; ++j) {
            v[j] = mcu_sigmoidf(v[j]);
        }
    } else if (code == MCU_RNN_ACT_TANH) {
        for (j = 0; j < n; ++j) {
            v[j] = mcu_tanhf(v[j]);
        }
    } else {
        for (j = 0; j < n; ++j) {
            v[j] = mcu_rnn_f32_act(code, p->alpha[d][k], p->beta[d][k], v[j]);
        }
    }
}

/* Row `row` of an [rows, n] matrix times vector v, MCU_F32_MAC from `acc` in column order. */
static float mcu_rnn_f32_dot(const float *m, int32_t row, int32_t n, const float *v, float acc)
{
    const float *mr = m + (size_t)row * n;
    int32_t k;
    for (k = 0; k < n; ++k) {
        acc = MCU_F32_MAC(acc, mr[k], v[k]);
    }
    return acc;
}

/* Rows row0 .. row0 + rows - 1 of an [.., n] matrix times v into y, each from init[k] (0.0 when init is NULL) in
 * column order: through mcu_matvec_f32 when the rows are packed (packed: those rows alone, by matvec_f32.h's row
 * blocks), else one dot per row of m. The same order either way. */
static void mcu_rnn_f32_rows(const float *packed, const float *m, int32_t row0, int32_t rows, int32_t n,
                             const float *v, const float *init, float *y)
{
    int32_t k;
    if (packed != NULL) {
        mcu_matvec_f32(packed, rows, n, v, init, y);
        return;
    }
    for (k = 0; k < rows; ++k) {
        y[k] = mcu_rnn_f32_dot(m, row0 + k, n, v, init ? init[k] : 0.0f);
    }
}

/* The combined bias Wb + Rb of gate row k (0 without B). */
static float mcu_rnn_f32_bias(const float *b, int32_t n_rows, int32_t k)
{
    return b ? b[k] + b[n_rows + k] : 0.0f;
}

/* One time step of one batch element: gate rows from xt and h (and c), then h and c updated in place.
 * A gate's pre-activation is X·W^T, then H·R^T accumulated onto it, then the LSTM peephole term, then the bias
 * Wb + Rb, then the clip: onnxruntime's order. */
static void mcu_rnn_f32_step(const mcu_rnn_f32_params *p, int32_t d, const float *xt, const float *w, const float *r,
                             const float *wp, const float *rp, const float *b, const float *peep, float *h, float *c,
                             float *gates, float *tmp, float *rec)
{
    const int32_t hs = p->hidden;
    const int32_t n_gates = p->cell == MCU_RNN_CELL_RNN ? 1 : (p->cell == MCU_RNN_CELL_GRU ? 3 : 4);
    const int32_t rows = n_gates * hs;
    int32_t j, k;
    mcu_rnn_f32_rows(wp, w, 0, rows, p->input, xt, NULL, gates);
    /* GRU's h gate: its recurrent part needs r, below */
    mcu_rnn_f32_rows(rp, r, 0, p->cell == MCU_RNN_CELL_GRU ? 2 * hs : rows, hs, h, gates, gates);
    if (p->cell == MCU_RNN_CELL_RNN) {
        for (j = 0; j < hs; ++j) {
            gates[j] = gates[j] + mcu_rnn_f32_bias(b, rows, j);
        }
        mcu_rnn_f32_acts(p, d, 0, p->clip, gates, hs);
        memcpy(h, gates, (size_t)hs * sizeof(float));
    } else if (p->cell == MCU_RNN_CELL_GRU) {
        for (k = 0; k < 2 * hs; ++k) {
            gates[k] = gates[k] + mcu_rnn_f32_bias(b, rows, k);
        }
        mcu_rnn_f32_acts(p, d, 0, p->clip, gates, 2 * hs); /* z, r */
        for (j = 0; j < hs; ++j) {
            tmp[j] = gates[hs + j] * h[j];
        }
        mcu_rnn_f32_rows(rp ? rp + (size_t)2 * hs * hs : NULL, r, 2 * hs, hs, hs, p->linear_before_reset ? h : tmp,
                         NULL, rec);
        for (j = 0; j < hs; ++j) {
            const float wb = b ? b[2 * hs + j] : 0.0f, rb = b ? b[rows + 2 * hs + j] : 0.0f;
            const float rh = p->linear_before_reset ? gates[hs + j] * (rec[j] + rb) : rec[j] + rb;
            gates[2 * hs + j] = gates[2 * hs + j] + wb + rh;
        }
        mcu_rnn_f32_acts(p, d, 1, p->clip, gates + 2 * hs, hs);
        for (j = 0; j < hs; ++j) {
            const float z = gates[j];
            h[j] = (1.0f - z) * gates[2 * hs + j] + z * h[j];
        }
    } else { /* gates i, o, f, c; the peepholes of i and f read C before the update, o's after it */
        for (j = 0; j < hs; ++j) {
            const float pi = peep ? peep[j] * c[j] : 0.0f, pf = peep ? peep[2 * hs + j] * c[j] : 0.0f;
            gates[j] = gates[j] + pi + mcu_rnn_f32_bias(b, rows, j);
            gates[2 * hs + j] = gates[2 * hs + j] + pf + mcu_rnn_f32_bias(b, rows, 2 * hs + j);
            gates[3 * hs + j] = gates[3 * hs + j] + mcu_rnn_f32_bias(b, rows, 3 * hs + j);
        }
        mcu_rnn_f32_acts(p, d, 0, p->clip, gates, hs);
        if (p->input_forget) {
            for (j = 0; j < hs; ++j) {
                gates[2 * hs + j] = 1.0f - gates[j];
            }
        } else {
            mcu_rnn_f32_acts(p, d, 0, p->clip, gates + 2 * hs, hs);
        }
        mcu_rnn_f32_acts(p, d, 1, p->clip, gates + 3 * hs, hs);
        for (j = 0; j < hs; ++j) {
            c[j] = gates[2 * hs + j] * c[j] + gates[j] * gates[3 * hs + j];
            gates[hs + j] = gates[hs + j] + (peep ? peep[hs + j] * c[j] : 0.0f) + mcu_rnn_f32_bias(b, rows, hs + j);
            tmp[j] = c[j];
        }
        mcu_rnn_f32_acts(p, d, 0, p->clip, gates + hs, hs);
        mcu_rnn_f32_acts(p, d, 2, 0.0f, tmp, hs);
        for (j = 0; j < hs; ++j) {
            h[j] = gates[hs + j] * tmp[j];
        }
    }
}

/* Directions one after the other; within one, time steps in processing order, batch elements in order. A batch
 * element's steps at or past its sequence length leave its state alone and write zeros to Y; direction 1 (and
 * direction 0 for direction=reverse) walks each sequence from its last valid step back to step 0. */
void mcu_rnn_f32(const mcu_rnn_f32_params *p, const float *x, const float *w, const float *r, const float *b,
                 const int32_t *seq_lens, const float *initial_h, const float *initial_c, const float *peep, float *y,
                 float *y_h, float *y_c, void *scratch)
{
    const int32_t hs = p->hidden;
    const int32_t n_gates = p->cell == MCU_RNN_CELL_RNN ? 1 : (p->cell == MCU_RNN_CELL_GRU ? 3 : 4);
    float *h = (float *)scratch;
    float *c = h + (size_t)p->batch * hs;
    float *gates = c + (size_t)p->batch * hs;
    float *tmp = gates + (size_t)n_gates * hs;
    float *rec = tmp + hs;
    int32_t d, s, bi, j;
    for (d = 0; d < p->dirs; ++d) {
        const int32_t reverse = d == 1 || p->reverse_first;
        const size_t w_off = (size_t)d * n_gates * hs * p->input, r_off = (size_t)d * n_gates * hs * hs;
        const float *wd = w ? w + w_off : NULL, *rd = r ? r + r_off : NULL;
        const float *wpd = p->w_packed ? p->w_packed + w_off : NULL, *rpd = p->r_packed ? p->r_packed + r_off : NULL;
        const float *bd = b ? b + (size_t)d * 2 * n_gates * hs : NULL;
        const float *pd = peep ? peep + (size_t)d * 3 * hs : NULL;
        for (bi = 0; bi < p->batch; ++bi) {
            const size_t state = p->layout ? ((size_t)bi * p->dirs + d) * hs : ((size_t)d * p->batch + bi) * hs;
            for (j = 0; j < hs; ++j) {
                h[(size_t)bi * hs + j] = initial_h ? initial_h[state + j] : 0.0f;
                c[(size_t)bi * hs + j] = initial_c ? initial_c[state + j] : 0.0f;
            }
        }
        for (s = 0; s < p->seq; ++s) {
            for (bi = 0; bi < p->batch; ++bi) {
                const int32_t len = seq_lens ? mcu_sat(seq_lens[bi], 0, p->seq) : p->seq;
                const int32_t t = s >= len ? s : (reverse ? len - 1 - s : s);
                float *yt = NULL;
                if (y) {
                    yt = y + (p->layout ? (((size_t)bi * p->seq + t) * p->dirs + d) * hs
                                        : (((size_t)t * p->dirs + d) * p->batch + bi) * hs);
                }
                if (s >= len) {
                    if (yt) {
                        memset(yt, 0, (size_t)hs * sizeof(float));
                    }
                    continue;
                }
                mcu_rnn_f32_step(p, d,
                                 x + (p->layout ? ((size_t)bi * p->seq + t) : ((size_t)t * p->batch + bi)) * p->input,
                                 wd, rd, wpd, rpd, bd, pd, h + (size_t)bi * hs, c + (size_t)bi * hs, gates, tmp,
                                 rec);
                if (yt) {
                    memcpy(yt, h + (size_t)bi * hs, (size_t)hs * sizeof(float));
                }
            }
        }
        for (bi = 0; bi < p->batch; ++bi) {
            const size_t state = p->layout ? ((size_t)bi * p->dirs + d) * hs : ((size_t)d * p->batch + bi) * hs;
            if (y_h) {
                memcpy(y_h + state, h + (size_t)bi * hs, (size_t)hs * sizeof(float));
            }
            if (y_c) {
                memcpy(y_c + state, c + (size_t)bi * hs, (size_t)hs * sizeof(float));
            }
        }
    }
}
