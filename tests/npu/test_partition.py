"""The NPU partition: constraints keep unsupported layers on the CPU with their reason, `max` places every
supported layer, `auto` is never estimated slower than all-NPU or all-CPU, `off` places none."""

from __future__ import annotations

import json

import pytest

from cli_models import run_cli
from mcucomp.npu import partition
from mcucomp.npu.constraints import CONSTRAINTS, CPU_ONLY_OPS, message
from mcucomp.pipeline import plan_model
from mcucomp.pipeline import verify_model
from npu_models import int8_model
from shared_models import shared_model

MODELS = ["kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop"]


def _placement(path, mode: str, npu: str | None = None) -> dict:
    """report['npu_placement'] of the model planned for corstone-300 with --npu-placement mode."""
    return plan_model(str(path), board="corstone-300", io_dtype="int8", npu_placement=mode, npu=npu).report


@pytest.mark.parametrize("model", MODELS)
def test_max_places_every_supported_layer_and_explains_the_rest(model):
    report = _placement(shared_model(f"mlperf_tiny/{model}.onnx"), "max")
    rows = report["npu_placement"]["layers"]
    cpu = [r for r in rows if r["placement"] == "cpu"]
    assert all(r["placement_reason"] for r in cpu)
    views = [r for r in cpu if r["placement_reason"].startswith("a view")]  # the layout pass's free reshapes
    assert {r["op"] for r in views} <= {"reshape"}
    assert {r["op"] for r in cpu if r not in views} <= {"softmax_s8", "add_s8"}  # layout transposes go too
    assert all(r["placement_reason"] == CPU_ONLY_OPS[r["op"]] for r in cpu if r not in views)
    npu_convs = [r for r in rows if r["op"] == "conv2d_s8"]
    assert npu_convs and all(r["placement"] == "npu" and r["npu_cycles_vela_estimated"] > 0 for r in npu_convs)
    for layer in report["layers"]:  # the scheduled layers: every one has a placement, CPU ones a reason
        assert layer["placement"] in ("npu", "cpu")
        assert layer["placement"] == "npu" or layer["placement_reason"]


def _tflite_operators(tflite: bytes) -> list[str]:
    """The builtin operator names of a region's .tflite, in subgraph order."""
    from ethosu.vela.tflite.BuiltinOperator import BuiltinOperator
    from ethosu.vela.tflite.Model import Model

    names = {v: k for k, v in vars(BuiltinOperator).items() if not k.startswith("_")}
    model = Model.GetRootAsModel(tflite, 0)
    sub = model.Subgraphs(0)
    return [names[model.OperatorCodes(sub.Operators(i).OpcodeIndex()).BuiltinCode()]
            for i in range(sub.OperatorsLength())]


@pytest.mark.parametrize("model", ["ic_resnet8_qdq", "unet"])
def test_regions_keep_the_layout_pass_layouts_and_transpose_only_channels_first_io(model, tmp_path_factory):
    """The layout pass converts the channels-first graph input once; that conversion joins the first region
    (a TRANSPOSE in its .tflite) and every other region tensor crosses channels-last, with no TRANSPOSE."""
    from mcucomp.npu.tflite_writer import needs_transpose
    from mcucomp.ops import REGISTRY

    path = int8_model(model, tmp_path_factory) if model == "unet" else shared_model(f"mlperf_tiny/{model}.onnx")
    planned = plan_model(str(path), board="corstone-300", io_dtype="int8", npu_placement="max")
    g = planned.graph
    regions = [n for n in planned.order if n.op == "ethosu_region"]
    assert regions and not [n.name for n in planned.order if n.op == "transpose"]  # conversions went to the NPU
    channels_first = []
    for node in regions:
        nchw = [t for t in node.inputs + node.outputs if needs_transpose(g.tensors[t])]
        channels_first += nchw
        assert _tflite_operators(node.attrs["tflite"]).count("TRANSPOSE") == len(nchw), node.name
        images = [t for t in node.inputs + node.outputs if len(g.tensors[t].shape) == 4]
        assert (node.attrs.get("layout") == "nhwc") == (bool(images) and not nchw)
        assert REGISTRY["ethosu_region"].channels_last(node, g) == (bool(images) and not nchw)
    assert channels_first == g.inputs


def test_regions_are_cut_to_the_region_calls_io_limit(tmp_path_factory):
    from mcucomp.ops.ethosu_region import MAX_IO

    result = verify_model(str(int8_model("fanout", tmp_path_factory)), inputs=2, board="corstone-300",
                          io_dtype="int8", npu_placement="max", progress=None)
    assert result.ok
    placement = result.report["npu_placement"]
    assert all(r["placement"] == "npu" for r in placement["layers"] if r["op"] == "conv2d_s8")
    regions = result.report["npu"]["regions"]
    assert len(regions) >= 2 and sum(len(r["outputs"]) for r in regions) >= 10
    assert all(len(r["inputs"]) <= MAX_IO and len(r["outputs"]) <= MAX_IO for r in regions)


@pytest.mark.parametrize("model", ["kws_dscnn_qdq", "ic_resnet8_qdq", "autoencoder"])
def test_auto_is_never_estimated_slower_than_all_npu_or_all_cpu(model, tmp_path_factory):
    path = int8_model(model, tmp_path_factory) if model == "autoencoder" else \
        shared_model(f"mlperf_tiny/{model}.onnx")
    latency = {mode: _placement(path, mode)["npu_placement"]["estimated_latency_us"] for mode in ("auto", "max", "off")}
    assert latency["auto"] <= latency["max"] + 1e-9
    assert latency["auto"] <= latency["off"] + 1e-9
    if model != "autoencoder":  # fc_s8's CPU estimate awaits a refit; for the convolution models the NPU pays off,
        assert latency["max"] < latency["off"]  # so the comparison is not vacuous


def test_auto_keeps_a_layer_on_the_cpu_when_the_npu_call_costs_more(monkeypatch):
    """With a region call dearer than IC's cheapest region (avgpool + fc: ~125k CPU cycles), auto keeps that region
    on the CPU and says why, with both figures labelled."""
    monkeypatch.setattr(partition, "ENTRY_CYCLES", 200_000)
    rows = _placement(shared_model("mlperf_tiny/ic_resnet8_qdq.onnx"), "auto")["npu_placement"]["layers"]
    cheaper = [r for r in rows if r.get("placement_reason", "").startswith("cheaper on CPU")]
    assert cheaper and {r["op"] for r in cheaper} >= {"fc_s8"}, rows
    assert "CPU cycles (estimated) vs" in cheaper[0]["placement_reason"]
    assert "Vela-estimated" in cheaper[0]["placement_reason"]
    assert any(r["placement"] == "npu" for r in rows), "the big convolution regions still pay for their call"


def test_off_places_nothing(tmp_path_factory):
    placement = _placement(shared_model("mlperf_tiny/kws_dscnn_qdq.onnx"), "off")["npu_placement"]
    assert placement["npu_layers"] == 0 and placement["regions"] == 0
    assert {r["placement_reason"] for r in placement["layers"]} == {"--npu-placement off"}


@pytest.mark.parametrize("kind, layer, reason", [
    ("dilated", "conv_dilated", message(CONSTRAINTS["conv2d_s8"][-1])),
    ("erf", "erf", "no NPU lowering in mcucomp for kernel op 'activation_f32', a float layer"),
])
def test_an_op_the_u55_cannot_run_stays_on_the_cpu_and_the_rest_goes_to_the_npu(kind, layer, reason,
                                                                                tmp_path_factory):
    placement = _placement(int8_model(kind, tmp_path_factory), "max")["npu_placement"]
    rows = {r["name"]: r for r in placement["layers"]}
    assert rows[layer]["placement"] == "cpu" and rows[layer]["placement_reason"].startswith(reason)
    assert all(rows[c]["placement"] == "npu" for c in ("conv_a", "conv_b", "conv_c"))
    assert placement["regions"] == 2


def test_a_layer_vela_refuses_stays_on_the_cpu_with_velas_message(monkeypatch):
    from mcucomp.npu import partition
    from mcucomp.npu.vela import NpuCompileError

    real = partition.compile_region

    def refuse_l05(tflite, cfg, io_names=None):
        """Vela, refusing any region holding L05."""
        if b"L05_dwconv_w" in tflite:
            raise NpuCompileError("Vela 5.2 could not compile an NPU region for ethos-u55-128: test refusal")
        return real(tflite, cfg, io_names)

    monkeypatch.setattr(partition, "compile_region", refuse_l05)
    placement = _placement(shared_model("mlperf_tiny/kws_dscnn_qdq.onnx"), "max")["npu_placement"]
    rows = {r["name"]: r for r in placement["layers"]}
    assert rows["L05_dwconv_f/Conv"]["placement"] == "cpu"
    assert rows["L05_dwconv_f/Conv"]["placement_reason"].startswith("Vela refused it: ") \
        and "test refusal" in rows["L05_dwconv_f/Conv"]["placement_reason"]
    assert placement["regions"] == 2 and placement["npu_layers"] == 11


def test_analyze_prints_the_placement_table_and_json_has_placement(tmp_path_factory):
    path = int8_model("dilated", tmp_path_factory)
    text = run_cli("analyze", path, "--board", "corstone-300", "--io-dtype", "int8", "--npu-placement", "max")
    assert text.returncode == 0, text.stderr
    assert "NPU placement (ethos-u55-128" in text.stdout and "NPU cycles (Vela-estimated)" in text.stdout
    assert "The dilated kernel must be at most 64 high" in text.stdout
    as_json = run_cli("analyze", path, "--board", "corstone-300", "--io-dtype", "int8", "--json")
    report = json.loads(as_json.stdout)
    assert all(layer["placement"] in ("npu", "cpu") for layer in report["layers"])
    assert all("placement_reason" in layer for layer in report["layers"] if layer["placement"] == "cpu")


def test_no_placement_fields_without_an_npu():
    report = plan_model(str(shared_model("mlperf_tiny/kws_dscnn_qdq.onnx")), io_dtype="int8").report
    assert report["npu_placement"] is None and all("placement" not in layer for layer in report["layers"])


def test_bad_placement_option_is_a_one_line_error():
    result = run_cli("analyze", shared_model("mlperf_tiny/kws_dscnn_qdq.onnx"), "--board", "corstone-300",
                     "--npu-placement", "most")
    assert result.returncode == 1 and "Traceback" not in result.stderr and "--npu-placement" in result.stderr


def test_max_placement_on_a_board_without_an_npu_is_a_one_line_error():
    result = run_cli("analyze", shared_model("mlperf_tiny/kws_dscnn_qdq.onnx"), "--board", "nucleo-l4r5zi",
                     "--npu-placement", "max")
    assert result.returncode == 1 and "has no NPU" in result.stderr and "--npu CONFIG" in result.stderr
    assert "Traceback" not in result.stderr
