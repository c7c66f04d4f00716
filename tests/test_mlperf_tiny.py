"""The MLPerf Tiny int8 models: bit-exact against onnxruntime on 1,000 random inputs, arena no larger than TFLM's."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

import mcucomp
import mcucomp.host

from shared_models import shared_model

TFLM_ARENA = {"kws_dscnn": 16000, "ic_resnet8": 49152}
MODELS = [f"{m}_{flavor}" for m in TFLM_ARENA for flavor in ("qdq", "qop")]


@pytest.mark.parametrize("model", MODELS)
def test_bit_exact_on_1000_inputs(model, tmp_path):
    """Every output byte equals onnxruntime's (default session options) for 1,000 seeded int8 inputs."""
    path = shared_model(f"mlperf_tiny/{model}.onnx")
    result = mcucomp.compile_model(path, tmp_path, name=model.split("_")[0])
    host = mcucomp.host.load(result.out_dir, layer_hook=False)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    spec = sess.get_inputs()[0]
    out_name = sess.get_outputs()[0].name
    rng = np.random.default_rng(2026)
    mismatches = []
    for i in range(1000):
        x = rng.integers(-128, 128, size=spec.shape, dtype=np.int8)
        ref = sess.run(None, {spec.name: x})[0]
        got = host.run({spec.name: x})[out_name]
        if not np.array_equal(ref, got):
            mismatches.append(i)
    assert mismatches == [], f"{len(mismatches)} of 1000 inputs differ from onnxruntime, first: {mismatches[:5]}"
    family = model.rsplit("_", 1)[0]
    assert result.report["arena_bytes"] <= TFLM_ARENA[family]
    assert result.report["arena_bytes"] == result.report["overlap_lower_bound_bytes"]
