#ifndef MCU_ATTENTION_F32_H
#define MCU_ATTENTION_F32_H
#include "mcu_rt.h"

/* Element strides of a [batch, heads, seq, dim] view (3-D inputs [batch, seq, heads * dim] are such a view too). */
typedef struct {
    int32_t b, h, s;
} mcu_attn_view;

/* What qk_matmul_output holds (qk_matmul_output_mode). */
#define MCU_ATTN_QK 0          /* Q K^T scaled (and soft-capped) */
#define MCU_ATTN_QK_SOFTCAP 1  /* the same value */
#define MCU_ATTN_QK_BIAS 2     /* plus the mask bias */
#define MCU_ATTN_QK_SOFTMAX 3  /* the softmax probabilities */

typedef struct {
    int32_t batch, q_heads, kv_heads, q_len, new_len, past_len, head_size, v_head_size;
    mcu_attn_view q, k, v, y;
    /* Each of q and k is multiplied by qk_scale (sqrt of the ONNX scale) before the dot product; softcap > 0:
     * scores become softcap * tanh(score / softcap). */
    float qk_scale, softcap;
    /* attn_mask: mask_bool selects uint8 (0: masked) or float (added); broadcast to [batch, q_heads, q_len,
     * mask_len] by these strides; keys at or past mask_len are masked. */
    int32_t mask_bool, mask_len, mask_strides[4];
    int32_t is_causal, left_window, right_window; /* window sides: -1 unbounded */
    int32_t qk_mode, softmax_double;
} mcu_attention_f32_params;

/** ONNX Attention (opset 23-25): Y = softmax(Q K^T + bias) V per query row, bias from attn_mask, causal, sliding
 * window and nonpad_kv_seqlen masks; keys and values are past_* followed by K, V (present_* receive them). Rows
 * whose bias masks every key give 0. mask, past_key, past_value, nonpad_kv_seqlen, present_key, present_value and
 * qk_out may be NULL. scratch: 2 * (past_len + new_len) floats. */
void mcu_attention_f32(const mcu_attention_f32_params *p, const float *q, const float *k, const float *v,
                       const void *mask, const float *past_key, const float *past_value,
                       const int64_t *nonpad_kv_seqlen, float *y, float *present_key, float *present_value,
                       float *qk_out, void *scratch);

#endif
