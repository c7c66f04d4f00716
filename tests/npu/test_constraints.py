"""NPU constraints: every one has a user message, each can refuse a layer, and the generated doc is current."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mcucomp.npu.constraints import CONSTRAINTS, CPU_ONLY_OPS, GENERIC, message, npu_refusal, supported_ops_markdown
from mcucomp.pipeline import lower_model
from shared_models import shared_model

DOC = Path(__file__).resolve().parents[2] / "docs" / "SUPPORTED_NPU_OPS.md"


def test_supported_npu_ops_doc_is_current():
    assert DOC.read_text(encoding="utf-8") == supported_ops_markdown(), \
        "docs/SUPPORTED_NPU_OPS.md is stale: run python bench/npu_ops_doc.py --update"


def test_every_constraint_has_a_one_paragraph_message():
    for checks in CONSTRAINTS.values():
        for check in checks:
            text = message(check)
            assert text.endswith(".") and len(text) > 40 and "\n" not in text, check.__name__


def test_u85_additions_are_listed():
    text = supported_ops_markdown()
    assert "Ethos-U85 adds" in text and "GATHER" in text.split("Ethos-U85 adds")[1]


def _first_conv():
    lowered = lower_model(str(shared_model("mlperf_tiny/kws_dscnn_qdq.onnx")), requant="fixed", io_dtype="int8")
    g = lowered.graph
    return g, next(n for n in lowered.order if n.op == "conv2d_s8" and n.attrs["group"] == 1)


def test_a_supported_conv_passes_and_each_broken_limit_is_named():
    g, conv = _first_conv()
    assert npu_refusal(conv, g, None) is None
    conv.attrs["strides"] = [4, 4]
    assert npu_refusal(conv, g, None).startswith("Stride must be 1-3")
    conv.attrs["strides"] = [2, 2]
    conv.attrs["w_zp"] = np.full(64, 3)
    assert npu_refusal(conv, g, None).startswith("Weights must be symmetric int8")
    conv.attrs["w_zp"] = None
    conv.attrs["rq"].mode = "float"
    assert npu_refusal(conv, g, None).startswith("The layer must be lowered with --requant fixed")


def test_generic_constraints_apply_to_every_op():
    assert all(checks[:len(GENERIC)] == GENERIC for checks in CONSTRAINTS.values())


def test_resnet8_adds_cannot_take_the_written_power_of_two_scales():
    """Why add_s8 stays on the CPU in fixed mode (CPU_ONLY_OPS): TFLite's ADD multipliers from the power-of-two
    scales a region writes differ from mcucomp's (from the real scales) for every Add of IC ResNet-8."""
    from mcucomp.npu.tflite_writer import pow2_scale
    from mcucomp.ops.add_s8 import tflite_add_multipliers

    lowered = lower_model(str(shared_model("mlperf_tiny/ic_resnet8_qdq.onnx")), requant="fixed", io_dtype="int8")
    adds = [n.attrs for n in lowered.order if n.op == "add_s8"]
    assert len(adds) == 3 and all(a["mode"] == "fixed" for a in adds)
    for a in adds:
        scales = [a[k] for k in ("a_scale", "b_scale", "y_scale")]
        assert tflite_add_multipliers(*scales) != tflite_add_multipliers(*(pow2_scale(s) for s in scales))
    assert "--requant fixed" in CPU_ONLY_OPS["add_s8"] and "--requant float" in CPU_ONLY_OPS["add_s8"]
