#ifndef MCU_RNN_F32_H
#define MCU_RNN_F32_H
#include "mcu_rt.h"

#define MCU_RNN_CELL_RNN 0  /* gates i:               H = f(i) */
#define MCU_RNN_CELL_GRU 1  /* gates z, r, h:         H = (1 - f(z)) g(h) + f(z) H */
#define MCU_RNN_CELL_LSTM 2 /* gates i, o, f, c:      C = f(f) C + f(i) g(c), H = f(o) h(C) */

/* Activation codes (ONNX RNN activation names); alpha and beta as the ONNX activation_alpha/beta. */
#define MCU_RNN_ACT_SIGMOID 0
#define MCU_RNN_ACT_TANH 1
#define MCU_RNN_ACT_RELU 2
#define MCU_RNN_ACT_AFFINE 3
#define MCU_RNN_ACT_LEAKY_RELU 4
#define MCU_RNN_ACT_THRESHOLDED_RELU 5
#define MCU_RNN_ACT_SCALED_TANH 6
#define MCU_RNN_ACT_HARD_SIGMOID 7
#define MCU_RNN_ACT_ELU 8
#define MCU_RNN_ACT_SOFTSIGN 9
#define MCU_RNN_ACT_SOFTPLUS 10

/* seq, batch, input, hidden: X's dims; dirs: 1 or 2 (direction 1 runs backwards; reverse_first: direction 0 does
 * too, for direction=reverse). layout: ONNX's 0 (X [seq, batch, input]) or 1 (X [batch, seq, input]).
 * act/alpha/beta: per direction, the cell's activations f, g, h. clip: bound of the gate pre-activations (0: none).
 * linear_before_reset (GRU), input_forget (LSTM): ONNX's attributes. w_packed, r_packed: constant W and R per
 * direction packed by matvec_f32.h's row blocks (R of a GRU as its z and r rows, then its h rows), or NULL: the gate
 * rows then read w and r one dot product at a time, in the same order. */
typedef struct {
    int32_t cell;
    int32_t seq, batch, input, hidden, dirs;
    int32_t reverse_first, layout;
    int32_t act[2][3];
    float alpha[2][3], beta[2][3];
    float clip;
    int32_t linear_before_reset, input_forget;
    const float *w_packed, *r_packed;
} mcu_rnn_f32_params;

/** ONNX RNN, GRU and LSTM on float32: w [dirs, G*hidden, input], r [dirs, G*hidden, hidden] (NULL when packed in
 * the params), optional b
 * [dirs, 2*G*hidden], seq_lens (int32 [batch]), initial_h, initial_c, p ([dirs, 3*hidden] peepholes); every
 * optional input and output may be NULL. scratch: (2 * batch + G + 2) * hidden floats. */
void mcu_rnn_f32(const mcu_rnn_f32_params *p, const float *x, const float *w, const float *r, const float *b,
                 const int32_t *seq_lens, const float *initial_h, const float *initial_c, const float *peep, float *y,
                 float *y_h, float *y_c, void *scratch);

#endif
