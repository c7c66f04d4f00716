#include "attention_f32.h"
#include "mcu_math.h"

/* Row j of the keys (or values) of head h of batch b: past rows first, then the new ones. */
static const float *mcu_attn_row(const float *past, const float *cur, const mcu_attn_view *view, int32_t past_len,
                                 int32_t heads, int32_t dim, int32_t b, int32_t h, int32_t j)
{
    if (j < past_len) {
        return past + (((size_t)b * heads + h) * past_len + j) * dim;
    }
    return cur + (size_t)b * view->b + (size_t)h * view->h + (size_t)(j - past_len) * view->s;
}

/* present = concat(past, new) along the sequence, [batch, heads, kv_len, dim]. */
static void mcu_attn_present(const mcu_attention_f32_params *p, const float *past, const float *cur,
                             const mcu_attn_view *view, int32_t dim, float *present)
{
    const int32_t kv_len = p->past_len + p->new_len;
    int32_t b, h, j;
    for (b = 0; b < p->batch; ++b) {
        for (h = 0; h < p->kv_heads; ++h) {
            for (j = 0; j < kv_len; ++j) {
                memcpy(present + (((size_t)b * p->kv_heads + h) * kv_len + j) * dim,
                       mcu_attn_row(past, cur, view, p->past_len, p->kv_heads, dim, b, h, j),
                       (size_t)dim * sizeof(float));
            }
        }
    }
}

/* The additive bias of query row i against every key: the mask value (0 / -inf for a bool mask, -inf past its
 * length), plus -inf for each of the causal, window and padding rules that excludes the key, added in the ONNX
 * reference's order. `offset` is the absolute position of query 0; `valid` the number of non-padding keys. */
static void mcu_attn_bias(const mcu_attention_f32_params *p, const void *mask, size_t mask_row, int32_t i,
                          int64_t offset, int64_t valid, int32_t kv_len, float *bias)
{
    int32_t j;
    for (j = 0; j < kv_len; ++j) {
        const int64_t diff = (int64_t)i + offset - j;
        float v = 0.0f;
        if (mask != NULL) {
            if (j >= p->mask_len) {
                v = -INFINITY;
            } else if (p->mask_bool) {
                v = ((const uint8_t *)mask)[mask_row + (size_t)j * p->mask_strides[3]] ? 0.0f : -INFINITY;
            } else {
                v = ((const float *)mask)[mask_row + (size_t)j * p->mask_strides[3]];
            }
        }
        if (p->is_causal && diff < 0) {
            v = v + -INFINITY;
        }
        if ((p->left_window >= 0 && diff > p->left_window) || (p->right_window >= 0 && -diff > p->right_window)) {
            v = v + -INFINITY;
        }
        if (j >= valid) {
            v = v + -INFINITY;
        }
        bias[j] = v;
    }
}

/* Softmax of one row in place; 0 everywhere when every entry is -inf (no attendable key). */
static void mcu_attn_softmax(float *w, int32_t n, int32_t in_double)
{
    float max = w[0];
    int32_t j;
    for (j = 1; j < n; ++j) {
        max = w[j] > max ? w[j] : max;
    }
    if (max == -INFINITY) {
        for (j = 0; j < n; ++j) {
            w[j] = 0.0f;
        }
    } else if (in_double) {
        double sum = 0.0;
        for (j = 0; j < n; ++j) {
            sum += mcu_exp_d((double)w[j] - (double)max);
        }
        for (j = 0; j < n; ++j) {
            w[j] = (float)(mcu_exp_d((double)w[j] - (double)max) / sum);
        }
    } else {
        mcu_softmax_strided(w, w, n, 1);
    }
}

void mcu_attention_f32(const mcu_attention_f32_params *p, const float *q, const float *k, const float *v,
                       const void *mask, const float *past_key, const float *past_value,
                       const int64_t *nonpad_kv_seqlen, float *y, float *present_key, float *present_value,
                       float *qk_out, void *scratch)
{
    const int32_t kv_len = p->past_len + p->new_len;
    const int32_t group = p->q_heads / p->kv_heads;
    float *score = (float *)scratch;
    float *bias = score + kv_len;
    int32_t b, h, i, j, d;
    if (present_key != NULL) {
        mcu_attn_present(p, past_key, k, &p->k, p->head_size, present_key);
    }
    if (present_value != NULL) {
        mcu_attn_present(p, past_value, v, &p->v, p->v_head_size, present_value);
    }
    for (b = 0; b < p->batch; ++b) {
        /* Clamped far outside any index so the int64 position arithmetic cannot overflow. */
        int64_t valid = kv_len, offset = p->past_len;
        if (nonpad_kv_seqlen != NULL) {
            valid = nonpad_kv_seqlen[b] < -((int64_t)1 << 40) ? -((int64_t)1 << 40) : nonpad_kv_seqlen[b];
            valid = valid > ((int64_t)1 << 40) ? ((int64_t)1 << 40) : valid;
            offset = valid - p->q_len;
        }
        for (h = 0; h < p->q_heads; ++h) {
            const int32_t kvh = h / group;
            for (i = 0; i < p->q_len; ++i) {
                const float *qrow = q + (size_t)b * p->q.b + (size_t)h * p->q.h + (size_t)i * p->q.s;
                float *yrow = y + (size_t)b * p->y.b + (size_t)h * p->y.h + (size_t)i * p->y.s;
                float *qk_row =
                    qk_out == NULL ? NULL : qk_out + (((size_t)b * p->q_heads + h) * p->q_len + i) * kv_len;
                const size_t mask_row = (size_t)b * p->mask_strides[0] + (size_t)h * p->mask_strides[1] +
                                        (size_t)i * p->mask_strides[2];
                int32_t all_masked = 1;
                mcu_attn_bias(p, mask, mask_row, i, offset, valid, kv_len, bias);
                for (j = 0; j < kv_len; ++j) {
                    const float *krow = mcu_attn_row(past_key, k, &p->k, p->past_len, p->kv_heads, p->head_size, b,
                                                     kvh, j);
                    float acc = 0.0f;
                    for (d = 0; d < p->head_size; ++d) {
                        acc += (qrow[d] * p->qk_scale) * (krow[d] * p->qk_scale);
                    }
                    if (p->softcap > 0.0f) {
                        acc = mcu_tanhf(acc / p->softcap) * p->softcap;
                    }
                    if (qk_row != NULL && p->qk_mode <= MCU_ATTN_QK_SOFTCAP) {
                        qk_row[j] = acc;
                    }
                    score[j] = acc + bias[j];
                    all_masked = all_masked && bias[j] == -INFINITY;
                    if (qk_row != NULL && p->qk_mode == MCU_ATTN_QK_BIAS) {
                        qk_row[j] = score[j];
                    }
                }
                mcu_attn_softmax(score, kv_len, p->softmax_double);
                for (j = 0; j < kv_len; ++j) {
                    score[j] = all_masked ? 0.0f : score[j];
                    if (qk_row != NULL && p->qk_mode == MCU_ATTN_QK_SOFTMAX) {
                        qk_row[j] = score[j];
                    }
                }
                for (d = 0; d < p->v_head_size; ++d) {
                    float acc = 0.0f;
                    for (j = 0; j < kv_len; ++j) {
                        acc += score[j] * mcu_attn_row(past_value, v, &p->v, p->past_len, p->kv_heads,
                                                       p->v_head_size, b, kvh, j)[d];
                    }
                    yrow[d] = acc;
                }
            }
        }
    }
}
