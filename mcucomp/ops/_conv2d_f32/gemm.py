"""The register-blocked micro-kernel both GEMM paths of conv2d_f32 share (runtime_c/kernels/conv2d_f32_gemm.h):
its block sizes, the packed weights and bias it reads, and the cost terms of its loops."""

from __future__ import annotations

import math

import numpy as np

#: Output channels and output pixels of one block (MCU_F32_BLOCK_OC, MCU_F32_BLOCK_PX in conv2d_f32_gemm.h).
BLOCK_OC = 4
BLOCK_PX = 4


def packed_weights(w: np.ndarray) -> np.ndarray:
    """Weights [c_out, taps...] in the order the micro-kernel reads them: per block of BLOCK_OC output channels,
    tap by tap (input channel, kernel row, column), the block's BLOCK_OC weights of the tap side by side; the output
    channels past c_out of the last block are zeros."""
    rows = np.asarray(w, np.float32).reshape(w.shape[0], -1)
    blocks = -(-rows.shape[0] // BLOCK_OC)
    rows = np.pad(rows, ((0, blocks * BLOCK_OC - rows.shape[0]), (0, 0)))
    return np.ascontiguousarray(rows.reshape(blocks, BLOCK_OC, -1).transpose(0, 2, 1)).reshape(-1)


def padded_bias(bias: np.ndarray | None, c_out: int) -> np.ndarray:
    """The bias rounded up to whole blocks, zeros where absent (adding +0.0 leaves an accumulator unchanged: one
    started at +0.0 is never -0.0)."""
    out = np.zeros(-(-c_out // BLOCK_OC) * BLOCK_OC, np.float32)
    if bias is not None:
        out[:c_out] = bias
    return out


def bound_tests(act_min: float, act_max: float) -> int:
    """The bounds a full block's stores test per output (mcu_conv2d_f32_block): none when both are infinite, the
    floor alone when act_max is +inf, else both."""
    if act_max == math.inf:
        return 0 if act_min == -math.inf else 1
    return 2


def block_terms(images: int, pixels: int, c_out: int, k: int, bounds: int) -> dict[str, int]:
    """mcu_conv2d_f32_columns over each image's column blocks (BLOCK_PX pixels, the last one short when `pixels` is
    not a multiple): per block of output channels one micro-kernel call of k // 4 four-tap turns and k % 4 single
    taps, its outputs stored at once testing `bounds` bounds each (a full block) or one by one (a tail block: c_out
    or the pixels not a multiple)."""
    column_blocks = -(-pixels // BLOCK_PX)
    blocks = images * column_blocks * -(-c_out // BLOCK_OC)
    full = images * (pixels // BLOCK_PX) * (c_out // BLOCK_OC)
    return {"blocks": blocks, "block_quads": blocks * (k // 4), "block_taps": blocks * (k % 4),
            "full_blocks": full, "full_block_bound_tests": full * bounds, "tail_blocks": blocks - full,
            "tail_outputs": images * pixels * c_out - full * BLOCK_OC * BLOCK_PX}
