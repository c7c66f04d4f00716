"""conv2d_s8's few-channels path (conv2d_s8_few_channels.c) off its float-mode assembly: the GEMM fallback of the
fixed mode on the DSP cores."""

from __future__ import annotations

import numpy as np
import pytest

import mcucomp
from mcucomp.ops.conv2d_s8 import conv_path
from mcucomp.pipeline import lower_model
from mcucomp.target.verify import verify_on_target

from conv2d_s8_cases import CASES, add_qlinearconv
from qmodels import QModel

@pytest.mark.parametrize("board", ["nucleo-l4r5zi", "nucleo-u575zi"])
def test_few_channels_fixed_requant_on_target_equals_host(tmp_path, board):
    """The few-channels cases with `--requant fixed` on DSP cores (their GEMM fallback there) equal the host build;
    the float mode's assembly is the on-target test above."""
    few = [i for i, case in enumerate(CASES) if case.x[1] <= 4 and case.group == 1 and case.k != (1, 1)]
    rng = np.random.default_rng(9)
    qm = QModel(np.int8)
    for i in few:
        add_qlinearconv(qm, f"c{i}", CASES[i], rng, np.int8, np.int8)
    mcucomp.compile_model(qm.model(), tmp_path, name="m", board=board, requant="fixed")
    g, order = lower_model(qm.model(), requant="fixed")[:2]
    assert {conv_path(n, g) for n in order if n.op == "conv2d_s8"} == {"few_channels"}
    result = verify_on_target(tmp_path, board, inputs=3, seed=0, timeout_s=120)
    assert result.status == "ok", result.detail
    assert result.mismatching and not any(result.mismatching.values()), result.mismatching
