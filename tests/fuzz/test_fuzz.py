"""The seeded fuzz suite: FUZZ_CASES mutated real models through the command line; none may end in exit 70, a
traceback, a hang, a message that is not one paragraph, or a half-written or mixed OUTDIR.

Each case runs main() in a forked child with a time limit; every SUBPROCESS_EVERY-th case runs as a real
`python -m mcucomp` process instead, and compiles whose seed is a multiple of 10 also build their C on the host.
bench/fuzz_long.py runs the same generators with random seeds for as long as you like."""

from __future__ import annotations

import pytest

import mcucomp.cli  # noqa: F401  (imported once here, so forked cases start warm)
import mcucomp.pipeline  # noqa: F401

from .cases import make_case, run_case

FUZZ_CASES = 300
SUBPROCESS_EVERY = 30
CASE_TIMEOUT_SECONDS = 60.0


@pytest.mark.parametrize("seed", range(FUZZ_CASES))
def test_fuzz_case(seed, tmp_path):
    case = make_case(seed)
    outcome = run_case(case, tmp_path / "case", CASE_TIMEOUT_SECONDS, real_process=seed % SUBPROCESS_EVERY == 0)
    assert outcome.problem is None, f"{outcome.problem} -- {outcome.reproduce()}"


def test_generators_are_deterministic():
    a, b = make_case(12345), make_case(12345)
    assert (a.model, a.argv, a.steps) == (b.model, b.argv, b.steps)
    assert make_case(12346).model != a.model or make_case(12346).argv != a.argv
