"""The full-size VWW bench model (vww96_mbnet_int8: MobileNetV1-0.25 at 96x96, int8 I/O) is MLPerf Tiny's VWW in
MACs and fits an arena below TFLM's live-set bound (../shared/docs/ANCHORS.md). Planned only: its cycles
are bench/bench_cycles.py's (BENCHMARKS.md), no test simulates it."""

from __future__ import annotations

import pytest
from cycle_models import CYCLE_MODELS

from mcucomp.fit import check_fit
from mcucomp.pipeline import plan_model

#: MLPerf Tiny VWW's convolution and FC MACs (ANCHORS); mcucomp also counts the global average pool's 3x3x256 adds.
VWW_MACS = 7_489_664
GLOBAL_POOL_ADDS = 3 * 3 * 256
#: TFLM on VWW: its arena head and the largest live set in its op order (ANCHORS).
TFLM_ARENA, TFLM_LIVE_SET = 73_728, 55_296
#: The best arena reached: the image's channels-last copy starting 2 * 9,216 B below its planes (5/3 of the 27,648 B
#: image at that step, _overlap.byte_transpose_2d), then the 48x48x8 -> 48x48x16 expansion over its input.
BEST_ARENA = 46_080


@pytest.fixture(scope="module")
def vww96():
    """The quantized model (built once)."""
    return CYCLE_MODELS["vww96_mbnet_int8"]()


@pytest.mark.parametrize("board", ["nucleo-l4r5zi", "nucleo-g0b1re"])
def test_vww96_macs_and_arena_against_tflm(vww96, board):
    """MACs equal MLPerf Tiny's (plus the pool's adds); the arena is at most the best reached (below TFLM's live-set
    bound and its arena), and the model fits the board."""
    planned = plan_model(vww96, name="m", board=board)
    report = planned.report
    check_fit(report, planned.board, report["fit"])  # raises FitError when it does not fit
    assert sum(layer["macs"] for layer in report["layers"]) == VWW_MACS + GLOBAL_POOL_ADDS
    assert report["arena_bytes"] <= BEST_ARENA < TFLM_LIVE_SET < TFLM_ARENA, report["arena_bytes"]
