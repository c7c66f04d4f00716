"""Host verify of NPU builds: CPU layers in the generated C, every region through LiteRT on its .tflite, compared
bit for bit with the all-CPU fixed-mode integer reference; reported as reference-checked."""

from __future__ import annotations

import builtins

import numpy as np
import pytest

from cli_models import run_cli
from mcucomp.npu import reference
from mcucomp.pipeline import verify_model
from npu_models import int8_model
from shared_models import shared_model


@pytest.mark.parametrize("model, placement", [("kws_dscnn_qdq", "auto"), ("ic_resnet8_qop", "max")])
def test_npu_build_is_bit_equal_to_the_all_cpu_fixed_build(model, placement, tmp_path):
    result = verify_model(str(shared_model(f"mlperf_tiny/{model}.onnx")), tmp_path / "out", inputs=6,
                          board="corstone-300", io_dtype="int8", npu_placement=placement, progress=None)
    assert result.ok and result.against == "integer reference"
    assert result.report["options"]["requant"] == "fixed"
    assert result.npu_regions >= 1 and result.npu_invocations == 6 * result.npu_regions
    assert (tmp_path / "out" / f"{model}_npu_region_0.tflite").is_file()


def test_autoencoder_on_u65(tmp_path_factory, tmp_path):
    result = verify_model(str(int8_model("autoencoder", tmp_path_factory)), inputs=4, board="corstone-300",
                          npu="ethos-u65-256", io_dtype="int8", npu_placement="max", progress=None)
    assert result.ok and result.npu_regions == 1 and result.npu_invocations == 4


@pytest.mark.parametrize("kind", ["padclip", "unet", "flatten"])
def test_pads_clamps_pools_resizes_concats_and_flattens(kind, tmp_path_factory):
    result = verify_model(str(int8_model(kind, tmp_path_factory)), inputs=4, board="corstone-300", io_dtype="int8",
                          npu_placement="max", progress=None)
    assert result.ok and result.npu_regions >= 1
    rows = result.report["npu_placement"]["layers"]
    assert all(r["placement"] == "npu" for r in rows
               if r["op"] in ("conv2d_s8", "maxpool_f32", "resize", "concat", "fc_s8", "transpose"))


def test_verify_catches_a_region_that_computes_something_else(monkeypatch, tmp_path):
    real_run = reference.RegionReference.run

    def negated(self, inputs):
        """LiteRT's outputs mirrored (v -> -v - 1): a region that ends in the logits changes the softmax after it, which
        a constant offset would not."""
        return [np.bitwise_not(y) for y in real_run(self, inputs)]

    monkeypatch.setattr(reference.RegionReference, "run", negated)
    result = verify_model(str(shared_model("mlperf_tiny/kws_dscnn_qdq.onnx")), inputs=2, board="corstone-300",
                          io_dtype="int8", progress=None)
    assert not result.ok and result.outputs[0].mismatching == 2


def test_cli_says_reference_checked_not_npu_verified(tmp_path):
    result = run_cli("verify", shared_model("mlperf_tiny/kws_dscnn_qdq.onnx"), "--board", "corstone-300",
                     "--io-dtype", "int8", "--inputs", "3")
    assert result.returncode == 0, result.stderr
    assert "reference-checked (not NPU-verified" in result.stdout
    assert "NPU-verified" not in result.stdout.replace("not NPU-verified", "")


def test_missing_litert_is_a_clear_error(monkeypatch):
    real_import = builtins.__import__

    def no_litert(name, *args, **kwargs):
        """import, failing for ai_edge_litert."""
        if name.startswith("ai_edge_litert"):
            raise ImportError("no LiteRT")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_litert)
    with pytest.raises(reference.LiteRTMissingError, match=r"pip install 'mcucomp\[verify\]'"):
        reference.RegionReference(b"")
