#include "fc_s8.h"

/* onnxruntime's DQ → float MatMul/Gemm → Q: each row dequantized once, each output summed in the order of the MLAS
 * kernel its thread runs (the M=1 kernels for a thread of one row), then divided by y_scale and rounded. */
static void mcu_fc_s8_float(const mcu_fc_s8_params *p, const int8_t *x, int8_t *y, float *row)
{
    const float lo = (float)(p->rq.qmin - p->rq.zp);
    const float hi = (float)(p->rq.qmax - p->rq.zp);
    int32_t r, o, k, rseg = 0, cseg, cstart;
    for (r = 0; r < p->rows; ++r) {
        const int8_t *xr = x + (size_t)r * p->in_features;
        int32_t m1;
        while (rseg < p->n_rseg - 1 && r >= p->rseg_end[rseg]) {
            ++rseg;
        }
        m1 = p->rseg_rows[rseg] == 1;
        for (k = 0; k < p->in_features; ++k) {
            row[k] = (float)((int32_t)xr[k] - p->x_zp) * p->x_scale;
        }
        cseg = 0;
        cstart = 0;
        for (o = 0; o < p->out_features; ++o) {
            const float *wo = p->wf + (size_t)o * p->in_features;
            const float c0 = p->bf ? p->bf[o] : 0.0f;
            float c;
            while (cseg < p->n_cseg - 1 && o >= p->cseg_end[cseg]) {
                cstart = p->cseg_end[cseg++];
            }
            if (m1 && p->transb) {
                c = mcu_mlas_dot_m1_transb(wo, row, p->in_features, o - cstart, p->cseg_end[cseg] - cstart, c0);
            } else if (m1) {
                c = mcu_mlas_dot_m1(wo, row, p->in_features, c0);
            } else {
                c = mcu_mlas_dot_fma(wo, row, p->in_features, p->cseg_kblock[cseg], c0);
            }
            c = mcu_clampf(c / p->y_scale, lo, hi);
            y[(size_t)r * p->out_features + o] = (int8_t)(mcu_round_even(c) + p->rq.zp);
        }
    }
}

/* Weights are stored [out][in] by the compiler so every output is one contiguous dot product. */
void mcu_fc_s8(const mcu_fc_s8_params *p, const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y,
               void *scratch)
{
    int32_t r, o, k;
    if (p->mode == MCU_FC_S8_FLOAT) {
        mcu_fc_s8_float(p, x, y, (float *)scratch);
        return;
    }
    for (r = 0; r < p->rows; ++r) {
        const int8_t *xr = x + (size_t)r * p->in_features;
        for (o = 0; o < p->out_features; ++o) {
            const int8_t *wo = w + (size_t)o * p->in_features;
            const int32_t wzp = p->w_zp ? p->w_zp[o] : 0;
            int32_t acc = bias ? bias[o] : 0;
            for (k = 0; k < p->in_features; ++k) {
                acc += ((int32_t)xr[k] - p->x_zp) * ((int32_t)wo[k] - wzp);
            }
            y[(size_t)r * p->out_features + o] = (int8_t)mcu_requant_apply(&p->rq, acc, o);
        }
    }
}
