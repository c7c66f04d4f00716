"""The packed row blocks of mcu_matvec_f32 (runtime_c/kernels/matvec_f32.h) and the cost terms of its loops."""

from __future__ import annotations

import numpy as np

BLOCK = 8  # MCU_MATVEC_F32_BLOCK
HALF = 4  # MCU_MATVEC_F32_HALF
TURN = 8  # columns per turn of mcu_matvec_f32's assembly loops (runtime_c/kernels/matvec_f32.c)


def pack_rows(w: np.ndarray) -> np.ndarray:
    """A float matrix [rows, cols] in the order mcu_matvec_f32 reads it: every 8 rows column by column ([cols][8]),
    then 4 rows likewise when rows % 8 >= 4, then the last rows % 4 rows row by row. Same element count."""
    rows = w.shape[0]
    full = rows - rows % BLOCK
    half = full + (HALF if rows - full >= HALF else 0)
    parts = [w[j:j + BLOCK].T.reshape(-1) for j in range(0, full, BLOCK)]
    parts += [w[full:half].T.reshape(-1), w[half:].reshape(-1)]
    return np.concatenate(parts).astype(np.float32)


def row_blocks(rows: int) -> tuple[int, int, int]:
    """(8-row blocks, 4-row blocks, single rows) of a packed matrix of `rows` rows."""
    blocks, rest = divmod(rows, BLOCK)
    return blocks, rest // HALF, rest % HALF


def matvec_terms(count: int, rows: int, cols: int) -> dict[str, int]:
    """`count` calls of mcu_matvec_f32 over `rows` x `cols`: per 8-row and per 4-row block its set-up and store, its
    MACs (turns of 8 columns on cores that take the assembly loops, of 2 or 1 in C elsewhere) and its columns past the
    last 8-column turn (one a turn in the assembly loops), per single row a dot product (its MACs)."""
    blocks, halves, singles = row_blocks(rows)
    return {"mv_calls": count, "mv_blocks": count * blocks, "mv_block_macs": count * blocks * BLOCK * cols,
            "mv_halves": count * halves, "mv_half_macs": count * halves * HALF * cols,
            "mv_tail_columns": count * (blocks + halves) * (cols % TURN), "mv_singles": count * singles,
            "mv_single_macs": count * singles * cols}
