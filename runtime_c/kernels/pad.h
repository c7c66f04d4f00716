#ifndef MCU_PAD_H
#define MCU_PAD_H
#include "mcu_rt.h"

enum { MCU_PAD_CONSTANT = 0, MCU_PAD_REFLECT = 1, MCU_PAD_EDGE = 2, MCU_PAD_WRAP = 3 };

/* pad_begin may be negative (cropping). Per dim, [lo, hi) is the part of the input that survives cropping; the
 * reflect, edge and wrap modes pad from that part, as onnxruntime does (crop first, then pad). value holds the
 * constant's bytes in the tensor's dtype. */
typedef struct {
    int32_t mode, rank, count, elem_bytes;
    int32_t in_dims[MCU_MAX_RANK];
    int32_t out_dims[MCU_MAX_RANK];
    int32_t pad_begin[MCU_MAX_RANK];
    int32_t lo[MCU_MAX_RANK];
    int32_t hi[MCU_MAX_RANK];
    uint8_t value[8];
} mcu_pad_params;

/** Pad (constant, reflect, edge, wrap) of a tensor of any dtype. */
void mcu_pad(const mcu_pad_params *p, const void *x, void *y);

#endif
