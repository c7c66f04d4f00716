"""The seeded fuzz suite: FUZZ_CASES mutated real models through the command line; none may end in exit 70, a
traceback, a hang, a message that is not one paragraph, or a half-written or mixed OUTDIR.

Each case runs main() in a forked child with a time limit; every SUBPROCESS_EVERY-th case runs as a real
`python -m mcucomp` process instead, and compiles whose seed is a multiple of 10 also build their C on the host.
bench/fuzz_long.py runs the same generators with random seeds for as long as you like."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import mcucomp.cli  # noqa: F401  (imported once here, so forked cases start warm)
import mcucomp.outdir
import mcucomp.pipeline
from mcucomp.errors import OutputError

from .cases import EXAMPLE_BASE, FOREIGN_FILES, REPO, base_models, make_case, run_case

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


def _clean_compile_case():
    """A case that compiles the unmutated tiny_cnn (the forked child inherits the test's monkeypatches)."""
    case = make_case(0)
    case.model = (REPO / EXAMPLE_BASE).read_bytes()
    case.argv, case.steps, case.host_build = ["compile", "MODEL", "-o", "OUTDIR"], ["none"], False
    case.foreign = None
    return case


def test_harness_accepts_a_clean_compile(tmp_path):
    assert run_case(_clean_compile_case(), tmp_path / "case").problem is None


@pytest.mark.parametrize("sabotage, expected", [
    ("crash", "exit 70"),
    ("hang", "hang"),
    ("half_written", "OUTDIR changed"),
    ("noise", "stderr output on success"),
])
def test_harness_detects_each_kind_of_problem(tmp_path, monkeypatch, sabotage, expected):
    real_plan = mcucomp.pipeline.plan_model

    def sabotaged(model, *args, **kwargs):
        if sabotage == "crash":
            raise RuntimeError("boom")
        if sabotage == "hang":
            time.sleep(30)
        if sabotage == "noise":
            print("warning: noise", file=sys.stderr)
        return real_plan(model, *args, **kwargs)

    def half_written(staging, out_dir, force=False):
        (Path(out_dir) / "model.c").write_text("half")
        raise OutputError("injected")

    monkeypatch.setattr(mcucomp.pipeline, "plan_model", sabotaged)
    if sabotage == "half_written":
        monkeypatch.setattr(mcucomp.outdir, "publish", half_written)
    outcome = run_case(_clean_compile_case(), tmp_path / "case", timeout=3.0)
    assert outcome.problem is not None and outcome.problem.startswith(expected), outcome.problem


@pytest.mark.parametrize("foreign", FOREIGN_FILES)
def test_foreign_file_refused_unless_forced(tmp_path, foreign):
    case = _clean_compile_case()
    case.foreign = foreign
    refused = run_case(case, tmp_path / "refused")
    assert refused.problem is None and refused.exit_code == 1, refused.problem
    assert "did not write" in refused.stderr and "--force" in refused.stderr
    assert ("model.c" if foreign == "user_source" else "report.json") in refused.stderr
    case.argv = case.argv + ["--force"]
    forced = run_case(case, tmp_path / "forced")
    assert forced.problem is None and forced.exit_code == 0, forced.problem


def test_harness_detects_an_overwritten_user_file(tmp_path, monkeypatch):
    monkeypatch.setattr(mcucomp.outdir, "_foreign_files", lambda out_dir, names: [])
    case = _clean_compile_case()
    case.foreign = "user_source"
    outcome = run_case(case, tmp_path / "case")
    assert outcome.problem == "compile replaced the user's user_source without --force", outcome.problem


def _scale_case(value: float):
    """A compile of the KWS QDQ model with its first weight DequantizeLinear's scale set to `value` (float32)."""
    case = make_case(0)
    model = onnx.load_from_string(base_models()["mlperf_tiny/kws_dscnn_qdq.onnx"])
    node = next(n for n in model.graph.node if n.op_type == "DequantizeLinear" and n.input[0].endswith("_w"))
    t = next(t for t in model.graph.initializer if t.name == node.input[1])
    shape = numpy_helper.to_array(t).shape
    with np.errstate(over="ignore"):
        t.CopyFrom(numpy_helper.from_array(np.full(shape, value, np.float32), t.name))
    case.model = model.SerializeToString()
    case.argv, case.steps, case.host_build = ["compile", "MODEL", "-o", "OUTDIR"], [f"{t.name} -> {value}"], False
    case.foreign = None
    return case, t.name


@pytest.mark.parametrize("value", [0.0, -0.0, -1.0, float("nan"), float("inf"), float("-inf"), 1e-45, 1e-39,
                                   -1e-40, 1e300])
def test_scales_that_define_no_mapping_are_refused(value, tmp_path):
    """0, negative, NaN, infinite and subnormal float32 scales: exit 1, one paragraph naming the scale, OUTDIR as it
    was."""
    case, name = _scale_case(value)
    outcome = run_case(case, tmp_path / "case")
    assert outcome.problem is None, f"{outcome.problem} -- {outcome.reproduce()}"
    assert outcome.exit_code == 1 and f"scale '{name}' holds" in outcome.stderr, outcome.stderr
    assert "normal float32" in outcome.stderr and "Re-quantize the model" in outcome.stderr


@pytest.mark.parametrize("value", [float(np.finfo(np.float32).tiny), 1e-13, 3e5, 3.4e38])
def test_every_normal_scale_compiles(value, tmp_path):
    """The smallest and largest normal float32 scales and a dead channel's compile (exit 0, nothing on stderr)."""
    case, _ = _scale_case(value)
    outcome = run_case(case, tmp_path / "case")
    assert outcome.problem is None and outcome.exit_code == 0, f"{outcome.problem} {outcome.stderr}"
