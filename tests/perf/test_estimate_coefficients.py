"""The stored cycle-model coefficients match the kernels, timing tables, flags and calibration set they were fitted
on (like the SUPPORTED_OPS.md test), and the estimator gives every layer of a model a figure."""

from __future__ import annotations

import json

import pytest

from mcucomp.perf.calibration import CALIBRATION_BOARDS
from mcucomp.perf.estimate import COEFFICIENT_DIR, GENERIC, fingerprint, fingerprint_sources
from mcucomp.pipeline import calibration_runtime_files, plan_model

from shared_models import shared_model

REFIT = "run `python bench/fit_cycle_model.py --core {core}` (12-20 minutes per core) and commit the result"


@pytest.mark.parametrize("core", sorted(CALIBRATION_BOARDS))
def test_coefficients_are_not_stale(core):
    """The fingerprint stored with the coefficients equals the one of today's sources; the message names what changed."""
    path = COEFFICIENT_DIR / f"{core}.json"
    assert path.is_file(), f"{path} is missing: " + REFIT.format(core=core)
    stored = json.loads(path.read_text())
    files = calibration_runtime_files()
    if stored["fingerprint"] != fingerprint(core, files):
        now = fingerprint_sources(core, files)
        changed = sorted(k for k in {**now, **stored["sources"]} if now.get(k) != stored["sources"].get(k))
        pytest.fail(f"the {core} cycle coefficients are stale ({', '.join(changed)} changed): " + REFIT.format(core=core))


@pytest.mark.parametrize("core", sorted(CALIBRATION_BOARDS))
def test_coefficients_cover_the_mlperf_kernel_paths(core):
    """Every kernel path of the MLPerf Tiny models is fitted, not left to the generic element model."""
    paths = json.loads((COEFFICIENT_DIR / f"{core}.json").read_text())["paths"]
    assert GENERIC in paths
    for name in ("kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop"):
        report = plan_model(shared_model(f"mlperf_tiny/{name}.onnx"), name="m",
                                    board=CALIBRATION_BOARDS[core]).report
        assert report["cycle_estimate"]["uncalibrated_layers"] == [], name
        assert report["estimated_total_cycles"] == sum(layer["estimated_cycles"] for layer in report["layers"])
