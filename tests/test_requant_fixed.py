"""`--requant fixed` on the MLPerf Tiny int8 models: the generated C equals a numpy evaluation of the lowered graph
(tests/int8_reference.py, requantization by mcucomp.fixedpoint) bit for bit."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

import mcucomp
import mcucomp.host
from mcucomp.pipeline import lower_model

from int8_reference import run_lowered
from shared_models import shared_model

MODELS = ["kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop"]


def random_int8(lowered, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One int8 input per graph input, uniform over [-128, 127]."""
    g = lowered.graph
    return {name: rng.integers(-128, 128, size=g.tensors[name].shape, dtype=np.int8) for name in g.inputs}


@pytest.mark.parametrize("model", MODELS)
def test_fixed_requant_matches_numpy_reference(model, tmp_path):
    """Every output byte of the fixed-point C equals the numpy reference on 50 seeded int8 inputs."""
    path = shared_model(f"mlperf_tiny/{model}.onnx")
    lowered = lower_model(path, requant="fixed")
    mcucomp.compile_model(path, tmp_path, name=model.split("_")[0], requant="fixed")
    host = mcucomp.host.load(tmp_path, layer_hook=False)
    rng = np.random.default_rng(31)
    mismatches = []
    for i in range(50):
        feeds = random_int8(lowered, rng)
        ref, got = run_lowered(lowered, feeds), host.run(feeds)
        if any(not np.array_equal(got[name], value) for name, value in ref.items()):
            mismatches.append(i)
    assert mismatches == [], f"{len(mismatches)} of 50 inputs differ from the numpy reference, first: {mismatches[:5]}"


@pytest.mark.parametrize("model", ["kws_dscnn_qop", "ic_resnet8_qop"])
def test_reference_in_onnx_mode_equals_onnxruntime(model):
    """The same numpy kernels with `--requant onnx` reproduce onnxruntime exactly: the reference is trustworthy."""
    path = shared_model(f"mlperf_tiny/{model}.onnx")
    lowered = lower_model(path, requant="onnx")
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    rng = np.random.default_rng(32)
    for i in range(20):
        feeds = random_int8(lowered, rng)
        ref = run_lowered(lowered, feeds)
        for name, value in zip(names, sess.run(names, feeds)):
            assert np.array_equal(ref[name], value), f"input {i}: numpy reference differs from onnxruntime on {name}"
