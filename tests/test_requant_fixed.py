"""Both requantization modes on the MLPerf Tiny int8 models: the generated C equals the package's integer reference
(mcucomp.intref: requantization by mcucomp.fixedpoint in `fixed` mode) bit for bit."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import mcucomp
import mcucomp.host
from mcucomp.pipeline import lower_model

from mcucomp.intref import run_graph, run_lowered
from shared_models import shared_model

MODELS = ["kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop"]


def random_int8(lowered, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One int8 input per graph input, uniform over [-128, 127]."""
    g = lowered.graph
    return {name: rng.integers(-128, 128, size=g.tensors[name].shape, dtype=np.int8) for name in g.inputs}


@pytest.mark.parametrize("requant", ["fixed", "float"])
@pytest.mark.parametrize("model", MODELS)
def test_c_matches_integer_reference(model, requant, tmp_path):
    """Every output byte of the C equals the integer reference on 50 seeded int8 inputs, in both modes."""
    path = shared_model(f"mlperf_tiny/{model}.onnx")
    lowered = lower_model(path, requant=requant)
    mcucomp.compile_model(path, tmp_path, name=model.split("_")[0], requant=requant)
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
def test_reference_in_float_mode_equals_onnxruntime(model):
    """The same numpy kernels with `--requant float` reproduce onnxruntime exactly on QOperator models: the reference
    is trustworthy. Every lowered tensor is exposed as an onnxruntime output: the models end in a QDQ Softmax group,
    which onnxruntime otherwise retypes to uint8 and runs as its less accurate uint8 QLinearSoftmax (up to 7 LSB
    from the true softmax); mcucomp gives that group integer semantics of its own (its int8 table)."""
    path = shared_model(f"mlperf_tiny/{model}.onnx")
    lowered = lower_model(path, requant="float")
    proto = onnx.load(path)
    produced = {o for node in proto.graph.node for o in node.output}
    names = [n.outputs[0] for n in lowered.order if n.outputs[0] in produced]
    proto.graph.output.extend(onnx.ValueInfoProto(name=n) for n in names
                              if n not in {o.name for o in proto.graph.output})
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(32)
    for i in range(20):
        feeds = random_int8(lowered, rng)
        ref = run_graph(lowered.graph, lowered.order, "float", feeds, keep_all=True)
        for name, value in zip(names, sess.run(names, feeds)):
            assert np.array_equal(ref[name], value), f"input {i}: numpy reference differs from onnxruntime on {name}"
