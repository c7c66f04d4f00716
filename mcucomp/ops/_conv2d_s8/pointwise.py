"""conv2d_s8's pointwise path (runtime_c/kernels/conv2d_s8_pointwise.c): when its C takes the DSP sweeps, and their
cost terms."""

from __future__ import annotations


#: Input channels up to which the pointwise path widens a pixel pair on the stack for the DSP sweeps
#: (MCU_CONV2D_S8_PW_TAPS in conv2d_s8_pointwise.c).
PW_TAPS = 256


def pointwise_swept(rq_fields: dict, plain: bool, w_zp, k: int, c_out: int) -> bool:
    """Whether the pointwise path's C takes the sweeps on DSP cores with an FPU (mcu_conv2d_s8_pointwise_widened):
    plain float requantization (Requant.plain) over the full int8 range, per-channel scales, no weight zero points,
    k % 4 == 0, k <= PW_TAPS, c_out >= 4."""
    full_range = (rq_fields["qmin"], rq_fields["qmax"]) == (-128, 127)
    return (full_range and plain and rq_fields["per_channel"] == 1 and w_zp is None and k % 4 == 0
            and k <= PW_TAPS and c_out >= 4)


def sweep_variant(k: int) -> str:
    """Which of mcu_conv2d_s8_pw_sweep's assembly loops takes k taps (k % 4 == 0): "fixed" (k = 8, 16, 32: one turn
    at constant offsets, the biases' pointer in a core register), "mid" (other k % 32 == 0: 64 taps a turn, a
    k % 64 == 32 entering its first at the middle) or "turn" (any k: 4 taps a turn)."""
    if k in (8, 16, 32):
        return "fixed"
    return "mid" if k % 32 == 0 else "turn"


def sweep_turns(k: int) -> int:
    """Step-loop tests of one 2x2 MAC loop of the sweep (mcu_conv2d_s8_pw_sweep): none for the fixed loop, one per 64
    taps (the first turn perhaps half) for mid, one per 4 taps for turn (sweep_variant)."""
    variant = sweep_variant(k)
    if variant == "fixed":
        return 0
    return -(-k // 64) if variant == "mid" else k // 4


def sweep_terms(pixels: int, k: int, c_out: int, unit_stride: bool) -> dict[str, int]:
    """The pointwise sweeps' loops (conv2d_s8_pointwise.c, DSP cores with an FPU): one sweep call for all pixel pairs
    (unit stride, c_out % 4 == 0) or one per pair; per pixel pair the widening (8 taps a turn, 4 in the turn variant, no
    loop in the fixed one: its pairs counted apart), per four channels one block (two 2x2 blocks of k / 4 steps and
    sweep_turns tests each, eight values requantized; the fixed variant's and the mid variant's bookkeeping counted
    apart); a lone pixel widened (k / 4 steps), then per four channels one one-pixel block (k / 4 steps, a test per
    64 taps when k % 64 == 0, per 32 when k % 32 == 0, else per 4); the c_out % 4 channels of each pixel pair or lone pixel through the GEMM
    block (`rest_blocks`, one k-long dot each)."""
    pairs, lone = pixels // 2, pixels % 2
    blocks, quads = pairs * (c_out // 4), lone * (c_out // 4)
    variant = sweep_variant(k)
    turns1 = k // (64 if k % 64 == 0 else 32 if k % 32 == 0 else 4)
    rest = (pairs + lone) * -(-(c_out % 4) // 2)
    calls = min(pairs, 1) if unit_stride and c_out % 4 == 0 else pairs
    return {"sweep_calls": calls, "sweep_pairs": pairs, "sweep_fixed_pairs": pairs if variant == "fixed" else 0,
            "sweep_lone": lone,
            "sweep_widened": pairs * (k // (4 if variant == "turn" else 8)), "sweep1_widened": lone * (k // 4),
            "sweep_blocks": blocks, "sweep_fixed_blocks": blocks if variant == "fixed" else 0,
            "sweep_mid_blocks": blocks if variant == "mid" else 0, "sweep_steps": blocks * (k // 2),
            "sweep_turns": blocks * 2 * sweep_turns(k),
            "sweep1_blocks": quads, "sweep1_steps": quads * (k // 4), "sweep1_turns": quads * turns1,
            "rest_blocks": rest, "rest_sixteens": rest * (k // 16), "rest_quads": rest * (k % 16 // 4)}
