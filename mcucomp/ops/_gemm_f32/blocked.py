"""gemm_f32's blocked path (runtime_c/kernels/gemm_f32_blocked.c): cost terms of its loops."""

from __future__ import annotations

from .packing import matvec_terms, row_blocks


def blocked_terms(rows: int, n: int, k: int) -> dict[str, int]:
    """Per pair of rows: per 8-column block k steps of 16 MACs, per 4-column block k steps of 8, per single column
    k steps of 2; a lone last row through mcu_matvec_f32 (matvec_terms)."""
    pairs = rows // 2
    blocks, halves, singles = row_blocks(n)
    return {"pairs": pairs, "pair_blocks": pairs * blocks, "pair_block_steps": pairs * blocks * k,
            "pair_halves": pairs * halves, "pair_half_steps": pairs * halves * k, "pair_singles": pairs * singles,
            "pair_single_steps": pairs * singles * k, **matvec_terms(rows % 2, n, k)}
