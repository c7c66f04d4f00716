"""conv2d_f32's pointwise path (runtime_c/kernels/conv2d_f32_pointwise.c): its scratch and cost terms."""

from __future__ import annotations

from .gemm import BLOCK_PX, block_terms


def pointwise_scratch(c_in: int) -> int:
    """Bytes of one block's columns: BLOCK_PX pixels of c_in floats."""
    return 4 * BLOCK_PX * c_in


def pointwise_terms(geom: dict, bounds: int) -> dict[str, int]:
    """Per block of BLOCK_PX pixels the c_in inputs copied to the scratch (a short last block: one by one, zeros past
    the last pixel), then the micro-kernel blocks (gemm.block_terms; `bounds`: gemm.bound_tests)."""
    pixels = geom["h_out"] * geom["w_out"]
    column_blocks = -(-pixels // BLOCK_PX)
    short = pixels % BLOCK_PX != 0
    return {"calls": 1, "column_blocks": column_blocks, "copied_taps": (column_blocks - short) * geom["c_in"],
            "short_copied_taps": short * geom["c_in"], **block_terms(1, pixels, geom["c_out"], geom["c_in"], bounds)}
