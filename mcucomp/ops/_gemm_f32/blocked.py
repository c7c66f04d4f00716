"""gemm_f32's blocked path (runtime_c/kernels/gemm_f32_blocked.c): cost terms of its loops."""

from __future__ import annotations

from .packing import BLOCK, HALF, row_blocks


def blocked_terms(rows: int, n: int, k: int) -> dict[str, int]:
    """Per pair of rows: per 8-column and per 4-column block its set-up and stores and its MACs (k steps of 16 or
    8), per single column k steps of 2 (their MACs); a lone last row through mcu_matvec_f32 (its MACs)."""
    pairs = rows // 2
    blocks, halves, singles = row_blocks(n)
    return {"pairs": pairs, "pair_blocks": pairs * (blocks + halves),
            "pair_block_macs": pairs * 2 * (blocks * BLOCK + halves * HALF) * k, "pair_singles": pairs * singles,
            "pair_single_macs": pairs * 2 * singles * k, "lone_rows": rows % 2, "lone_macs": rows % 2 * n * k}
