"""The channels-last layout pass (mcucomp/passes/layout.py) and --io-layout nhwc: which nodes run channels-last,
conversions only at the borders (free reshapes when C == 1 or the spatial size is 1), Flatten → Gemm weight
permutation instead of a transpose, and the compiled models bit-exact with the integer reference and within the
layer-local bound of onnxruntime (verify) in every layout."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from cli_models import run_cli
from int8_models import autoencoder, data_moves, mobilenet_v2, pools_adds_concats, quantize_qdq, unet
from onnx import TensorProto, helper, numpy_helper
from shared_models import shared_model

from mcucomp import cli
from mcucomp.ops import REGISTRY
from mcucomp.passes import layout
from mcucomp.pipeline import lower_model
from mcucomp.pipeline import verify_model

FOLLOWERS = layout.LAYOUT_FOLLOWERS


def _anchor(monkeypatch, *ops: str) -> None:
    """Make these follower kernels run channels-last wherever they can, as a channels-last conv would."""
    monkeypatch.setattr(layout, "LAYOUT_FOLLOWERS", tuple(op for op in FOLLOWERS if op not in ops))


def _followers_off(patch) -> None:
    """No follower kernel may run channels-last (the pass as if only the anchors, such as convs, could)."""
    for op in FOLLOWERS:
        patch.setattr(type(REGISTRY[op]), "channels_last", lambda self, node, g: False)


def _transposed_bytes(lowered) -> int:
    """Bytes the inserted transposes copy per inference."""
    return sum(lowered.graph.tensors[n.inputs[0]].nbytes for n in _conversions(lowered) if n.op == "transpose")


def _conversions(lowered) -> list:
    """The nodes the layout pass inserted (named after the tensor they write, '<tensor>_layout')."""
    return [n for n in lowered.order if n.name.endswith("_layout") or "_layout_" in n.name]


def _check_borders(lowered) -> None:
    """Every image a node reads or writes is stored in the node's layout, except at an absorbing Flatten, and every
    conversion converts between two different layouts from a tensor that is not itself a conversion's output."""
    g = lowered.graph
    made_by = {o: n for n in lowered.order for o in n.outputs}
    inserted = {n.name for n in _conversions(lowered)}
    for node in lowered.order:
        images = [t for t in (g.tensors[i] for i in node.inputs + node.outputs if i)
                  if not t.is_const and len(t.shape) in (3, 4)]
        if node.name in inserted:
            src, dst = g.tensors[node.inputs[0]], g.tensors[node.outputs[0]]
            assert src.layout != dst.layout and src.onnx_shape == dst.onnx_shape, node.name
            assert made_by.get(src.name) is None or made_by[src.name].name not in inserted, node.name
            continue
        want = "nhwc" if node.attrs.get("layout") == "nhwc" else ""
        if node.op == "reshape" and want == "" and len(g.tensors[node.outputs[0]].shape) == 2:
            images = images[1:]  # a Flatten into a matrix product reads either layout
        assert all(t.layout == want for t in images), (node.name, node.op, [(t.name, t.layout) for t in images])


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """QDQ files of the test builders (name → path)."""
    d = tmp_path_factory.mktemp("layout_models")
    return {name: str(quantize_qdq(build(), d / f"{name}.onnx"))
            for name, build in (("mix", pools_adds_concats), ("unet", unet), ("mnv2", mobilenet_v2),
                                ("moves", data_moves))}


@pytest.mark.parametrize("name", ["mix", "unet", "mnv2", "moves"])
def test_followers_never_add_conversions(models, name):
    """Pools, adds, concats, resizes and tables join channels-last only where that saves transposes: never more
    bytes transposed than with every follower channels-first, whatever the io options (with channels-first convs,
    none at all)."""
    for opts in ({}, {"io_dtype": "int8"}, {"io_dtype": "int8", "io_layout": "nhwc"}):
        lowered = lower_model(models[name], **opts)
        _check_borders(lowered)
        with pytest.MonkeyPatch.context() as patch:
            _followers_off(patch)
            alone = lower_model(models[name], **opts)
        assert _transposed_bytes(lowered) <= _transposed_bytes(alone)
        if not REGISTRY["conv2d_s8"].channels_last(next(n for n in lowered.order if n.op == "conv2d_s8"),
                                                   lowered.graph):
            assert _transposed_bytes(lowered) == (0 if "io_layout" not in opts else _transposed_bytes(alone))


@pytest.mark.parametrize("anchors", [("lut8",), ("maxpool_f32", "add_s8"), FOLLOWERS])
@pytest.mark.parametrize("opts", [{}, {"io_dtype": "int8", "io_layout": "nhwc"}])
def test_regions_are_exact_and_converted_at_borders(models, anchors, opts, monkeypatch, tmp_path):
    """Channels-last regions around forced channels-last kernels: conversions only at their borders, host C equal
    to the integer reference bit for bit, every layer within the layer-local bound of onnxruntime."""
    _anchor(monkeypatch, *anchors)
    lowered = lower_model(models["mix"], **opts)
    assert any(n.attrs.get("layout") == "nhwc" for n in lowered.order)
    _check_borders(lowered)
    result = verify_model(models["mix"], tmp_path / "out", inputs=3, progress=None, **opts)
    assert result.against == "integer reference" and result.ok, (result.outputs, result.first_bad_local)


def test_flatten_into_gemm_permutes_weights_instead_of_transposing(models, monkeypatch):
    """The 3x3 average pool's channels-last output feeds Flatten → Gemm as it is (the fc_s8 weight columns are
    permuted at compile time); verify above proves the permutation right."""
    with pytest.MonkeyPatch.context() as patch:
        _followers_off(patch)
        plain = lower_model(models["mix"], io_dtype="int8").graph  # the pool channels-first: weights in ONNX order
    w_onnx = plain.const(next(n for n in plain.nodes if n.op == "fc_s8").inputs[1])
    _anchor(monkeypatch, *FOLLOWERS)
    lowered = lower_model(models["mix"], io_dtype="int8")
    g = lowered.graph
    pool = next(n for n in lowered.order if n.op == "avgpool_s8")
    assert pool.attrs["layout"] == "nhwc" and g.tensors[pool.outputs[0]].shape == (1, 3, 3, 16)
    flatten = next(n for n in lowered.order if n.op == "reshape" and n.inputs[0] == pool.outputs[0])
    fc = next(n for n in lowered.order if n.op == "fc_s8")
    assert fc.inputs[0] == flatten.outputs[0] and fc.inputs[1].endswith("_nhwc")
    order = np.arange(144).reshape(16, 9).T.reshape(-1)
    assert np.array_equal(g.const(fc.inputs[1]), w_onnx[:, order])


def _float_concat_gemm(op: str) -> onnx.ModelProto:
    """float32 1x4x3x3 → Concat(x, x) on channels → Flatten → Gemm(transB) / MatMul → 1x5: weights on either axis."""
    rng = np.random.default_rng(5)
    w = rng.standard_normal((5, 72) if op == "Gemm" else (72, 5)).astype(np.float32)
    nodes = [helper.make_node("Concat", ["x", "x"], ["p"], axis=1),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node(op, ["f", "w"], ["y"], **({"transB": 1} if op == "Gemm" else {}))]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 3, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
                              [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


@pytest.mark.parametrize("op", ["Gemm", "MatMul"])
def test_float_flatten_into_gemm(op, monkeypatch, tmp_path):
    """gemm_f32 after a channels-last Concat of the channels-last input: K rows (MatMul) or K columns (Gemm transB)
    permuted, same results."""
    _anchor(monkeypatch, "concat")
    path = tmp_path / "m.onnx"
    onnx.save(_float_concat_gemm(op), path)
    lowered = lower_model(str(path), io_layout="nhwc")
    assert [n.op for n in lowered.order] == ["concat", "reshape", "gemm_f32"]
    assert lowered.order[0].attrs["layout"] == "nhwc"
    result = verify_model(str(path), tmp_path / "out", inputs=3, progress=None, io_layout="nhwc")
    assert result.ok, result.outputs


MLPERF = ["kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop"]


@pytest.mark.parametrize("name", MLPERF + ["unet", "mnv2", "moves"])
def test_channels_last_convs_leave_conversions_only_at_io(name, models, monkeypatch):
    """With conv2d_s8 channels-last (as the NHWC conv kernel makes it), the pools, adds, concats, splits, strided
    copies and tables join it (a Split whose outputs meet in a Concat joins with it): no transpose inside the model
    (free reshapes only); at the graph input a transpose (a free reshape when C == 1), none with --io-layout nhwc."""
    monkeypatch.setattr(type(REGISTRY["conv2d_s8"]), "channels_last", lambda self, node, g: True)
    path = models[name] if name in models else str(shared_model(f"mlperf_tiny/{name}.onnx"))
    for opts in ({"io_dtype": "int8"}, {"io_dtype": "int8", "io_layout": "nhwc"}):
        lowered = lower_model(path, **opts)
        _check_borders(lowered)
        g = lowered.graph
        inner = [n for n in _conversions(lowered) if n.op == "transpose" and n.inputs[0] not in g.inputs
                 and n.outputs[0] not in g.outputs]
        assert inner == [], [(n.name, n.op) for n in inner]
        at_input = [n for n in _conversions(lowered) if n.inputs[0] in g.inputs]
        if opts.get("io_layout") == "nhwc":
            assert at_input == []
        elif name.startswith("kws"):
            assert [n.op for n in at_input] == ["reshape"]  # 1x1x49x10: one channel
        assert all(n.attrs.get("layout") == "nhwc" for n in lowered.order if n.op == "conv2d_s8")


def test_io_layout_nhwc_header_report_and_verify(models, tmp_path):
    """--io-layout nhwc: the input is stored N, H, W, C, the header says so, report.json gives each I/O's layout,
    and verify feeds onnxruntime the transposed inputs."""
    result = verify_model(models["mix"], tmp_path / "out", inputs=3, progress=None, io_dtype="int8",
                          io_layout="nhwc", name="mix")
    assert result.ok
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["inputs"][0]["layout"] == "nhwc" and report["inputs"][0]["shape"] == [1, 12, 12, 3]
    assert report["outputs"][0]["layout"] == "onnx" and report["options"]["io_layout"] == "nhwc"
    header = (tmp_path / "out" / "mix.h").read_text()
    assert "int8_t[1][12][12][3], channels-last (N, spatial..., C)" in header
    assert "[1][10], ONNX order" in header


def test_io_layout_nhwc_without_images_changes_nothing(tmp_path):
    """A model without 3-D/4-D I/O (the AD autoencoder) compiles the same with --io-layout nhwc."""
    path = str(quantize_qdq(autoencoder(), tmp_path / "ad.onnx"))
    plain, nhwc = lower_model(path, io_dtype="int8"), lower_model(path, io_dtype="int8", io_layout="nhwc")
    assert [(n.op, n.inputs) for n in plain.order] == [(n.op, n.inputs) for n in nhwc.order]


def test_io_layout_unknown_value_is_an_option_error(models):
    """Exit 1 with the option named, no traceback."""
    proc = run_cli("compile", models["mix"], "--io-layout", "chw")
    assert proc.returncode == 1 and "--io-layout" in proc.stderr and "Traceback" not in proc.stderr


def test_show_prints_layouts(models, monkeypatch, capsys):
    """`show` marks channels-last tensors (` nhwc` after the stored shape) and nodes (`/nhwc` after the op)."""
    _anchor(monkeypatch, *FOLLOWERS)
    assert cli.main(["show", models["mix"], "--io-dtype", "int8", "--io-layout", "nhwc"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("inputs:  x:int8[1,12,12,3] nhwc q(")
    pool = next(line for line in lines if "averagepool" in line)
    assert "avgpool_s8" in pool and "/nhwc" in pool and "int8[1,3,3,16] nhwc" in pool


def test_io_layout_nhwc_float_image_io(models, tmp_path):
    """Float image input and output (the U-Net's 1x1x64x64 mask) with --io-layout nhwc: the QuantizeLinear and the
    DequantizeLinear read and write channels-last graph I/O (any transpose is on the int8 side), verify passes
    against onnxruntime's transposed data."""
    lowered = lower_model(models["unet"], io_layout="nhwc")
    assert {lowered.graph.tensors[n.inputs[0]].dtype for n in lowered.order if n.op == "transpose"} <= {"int8"}
    assert all(n.attrs.get("layout") == "nhwc" for n in lowered.order if n.op == "quantize_linear")
    result = verify_model(models["unet"], tmp_path / "out", inputs=2, progress=None, io_layout="nhwc")
    assert result.ok, (result.outputs, result.first_bad_local)
    assert [s["shape"] for s in result.report["inputs"] + result.report["outputs"]] == [[1, 64, 64, 3], [1, 64, 64, 1]]
