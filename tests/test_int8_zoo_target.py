"""The int8 test zoo on the five emulated cores: every int8 model the tests build (tests/int8_models.py ZOO) runs bit
for bit as the integer reference on the host and under QEMU on M4 (mps2-an386), M7 (an500), M33 (an505), M55
(an547) and M0+ (an385) in each core's default requantization (float on FPU cores, fixed on M0+), and every int8 model
(the zoo and the MLPerf Tiny files) runs `--requant fixed` on the M4, an FPU core whose default is float. (The MLPerf
Tiny files in their default modes on the five cores are tests/test_target.py's.) Each case compiles into its own
directory, so the cases run in parallel under xdist."""

from __future__ import annotations

import numpy as np
import pytest

import mcucomp
import mcucomp.host
from mcucomp.intref import run_lowered
from mcucomp.pipeline import lower_model
from mcucomp.target.verify import verify_on_target
from mcucomp.verify import random_feeds

from int8_models import ALL_INT8, ZOO, int8_model_path
from target_boards import CORE_BOARDS

FIXED_ON_FPU_CORE = "nucleo-l4r5zi"
INPUTS = 2
CASES = ([(m, b, None) for m in sorted(ZOO) for b in CORE_BOARDS]
         + [(m, FIXED_ON_FPU_CORE, "fixed") for m in ALL_INT8])


@pytest.mark.parametrize("model,board,requant", CASES, ids=[f"{m}-{b}-{r or 'default'}" for m, b, r in CASES])
def test_int8_model_bit_exact_on_core(model, board, requant, tmp_path, tmp_path_factory):
    path = int8_model_path(model, tmp_path_factory.getbasetemp())
    options = {"requant": requant} if requant else {}
    # the fit check is off: QEMU's machines have more RAM than the boards, and bit-exactness is what is tested
    report = mcucomp.compile_model(path, tmp_path, name="m", board=board, fit_check=False, **options).report
    lowered = lower_model(path, requant=report["requant"]["mode"])
    host = mcucomp.host.load(tmp_path, layer_hook=False)
    rng = np.random.default_rng(0)
    for i in range(INPUTS):
        feeds = random_feeds(report["inputs"], rng)
        got, want = host.run(feeds), run_lowered(lowered, feeds)
        bad = [name for name, value in want.items() if not np.array_equal(got[name], value)]
        assert bad == [], f"{model} on the host, input {i}: {bad} differ from the integer reference"
    result = verify_on_target(tmp_path, board, inputs=INPUTS, seed=0, timeout_s=300)
    assert result.status == "ok", f"{model} on {board}: {result.detail}"
    assert result.mismatching and not any(result.mismatching.values()), (
        f"{model} on {board} ({report['requant']['mode']}): outputs differ from the host on {result.mismatching}")
