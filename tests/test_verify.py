"""Host verification against onnxruntime: the accuracy contract, random inputs, mismatch reporting and bisection."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest
from cli_models import save, two_conv_model

import mcucomp
from mcucomp import cli, pipeline, verify
from mcucomp.errors import McucompError
from mcucomp.pipeline import lower_compiled, verify_model
from mcucomp.verify import FLOAT_ULP_BOUND, compare, random_feeds, ulp_tolerance, verify_compiled


def test_integers_must_be_identical():
    ref = np.array([-128, 0, 127], np.int8)
    assert compare(ref.copy(), ref).mismatched == 0
    d = compare(np.array([-128, 1, 127], np.int8), ref)
    assert (d.mismatched, d.max_abs_diff) == (1, 1.0)
    wide = compare(np.array([127], np.int8), np.array([-128], np.int8))
    assert wide.max_abs_diff == 255.0


def test_float_bound_is_64_ulp_of_the_tensor_peak():
    ref = np.array([4.0, -1.0, 0.001], np.float32)
    ulp = float(np.spacing(np.float32(4.0)))
    assert ulp_tolerance(ref) == FLOAT_ULP_BOUND * ulp
    at_bound = ref.astype(np.float64) + np.array([0, 0, FLOAT_ULP_BOUND * ulp])
    assert compare(at_bound.astype(np.float32), ref).mismatched == 0
    beyond = ref.copy()
    beyond[2] += np.float32((FLOAT_ULP_BOUND + 2) * ulp)
    d = compare(beyond, ref)
    assert d.mismatched == 1 and d.max_ulp > FLOAT_ULP_BOUND


def test_float_specials():
    ref = np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)
    assert compare(ref.copy(), ref).mismatched == 0
    assert compare(np.array([0.0, np.inf, -np.inf, 1.0], np.float32), ref).mismatched == 1
    assert compare(np.array([np.nan, -np.inf, -np.inf, 1.0], np.float32), ref).mismatched == 1
    assert compare(np.zeros((2, 2), np.float32), np.zeros(4, np.float32)).mismatched == 4


def test_random_inputs_cover_the_integer_range_and_are_seeded():
    specs = [{"name": "q", "dtype": "int8", "shape": [4096]}, {"name": "f", "dtype": "float32", "shape": [4096]},
             {"name": "u", "dtype": "uint8", "shape": [4096]}]
    feeds = random_feeds(specs, np.random.default_rng(3))
    assert feeds["q"].dtype == np.int8 and (feeds["q"].min(), feeds["q"].max()) == (-128, 127)
    assert (feeds["u"].min(), feeds["u"].max()) == (0, 255)
    assert feeds["f"].dtype == np.float32 and abs(feeds["f"].mean()) < 0.1 and 0.9 < feeds["f"].std() < 1.1
    again = random_feeds(specs, np.random.default_rng(3))
    assert all(np.array_equal(feeds[k], again[k]) for k in feeds)


def test_capture_index_skips_alias_layers():
    """PROFILE_END numbers calls only; reshape-like layers emit none."""
    report = {"layers": [{"step": 0, "alias": False}, {"step": 1, "alias": True}, {"step": 2, "alias": False}]}
    assert [verify._call_index(report, s) for s in range(3)] == [0, 0, 1]


def test_float_model_verifies(tmp_path):
    path = save(two_conv_model(), tmp_path / "m.onnx")
    result = verify_model(path, inputs=5, seed=1, bisect_always=True, progress=None)
    assert result.ok and result.out_dir is None
    assert [o.compared for o in result.outputs] == [5]
    assert result.outputs[0].max_ulp <= FLOAT_ULP_BOUND
    assert [(d.layer, d.tensor, d.diff.mismatched) for d in result.layers] == [("conv1", "h", 0), ("conv2", "y", 0)]


def _break_second_conv(out_dir) -> None:
    """Corrupt the first weight of conv2 in the generated C, so verification must fail from conv2 on."""
    weights = next(out_dir.glob("*_weights.c"))
    # conv2 takes the im2col path, which reads its weights packed at compile time (<prefix>_c<N>_conv2_wpack)
    text, count = re.subn(r"(_conv2_wpack\[\d+\][^{]*\{\s*)([^,]+),", r"\g<1>1000.0f,", weights.read_text(),
                          count=1)
    assert count == 1, weights.read_text()[:2000]
    weights.write_text(text)


def test_mismatch_is_found_and_bisected(tmp_path):
    path = save(two_conv_model(), tmp_path / "m.onnx")
    out = tmp_path / "out"
    mcucomp.compile_model(path, out)
    _break_second_conv(out)
    result = verify_compiled(path, out, lower_compiled(path, out), inputs=3, progress=None)
    assert not result.ok
    assert (result.outputs[0].mismatching, result.outputs[0].first_bad_input) == (3, 0)
    assert result.layers[0].diff.mismatched == 0
    bad = result.first_bad_layer
    assert (bad.step, bad.layer, bad.op, bad.tensor) == (1, "conv2", "conv2d_f32", "y")
    assert bad.diff.max_abs_diff > 100


def test_cli_exits_3_and_names_the_layer(tmp_path, monkeypatch, capsys):
    def compile_then_break(model, out_dir, **kwargs):
        result = mcucomp.compile_model(model, out_dir, **kwargs)
        _break_second_conv(result.out_dir)
        return result

    monkeypatch.setattr(pipeline, "compile_model", compile_then_break)
    path = save(two_conv_model(), tmp_path / "m.onnx")
    assert cli.main(["verify", str(path), "--inputs", "2"]) == 3
    captured = capsys.readouterr()
    assert re.search(r"^y\s+float32\s+2\s+2\s", captured.out, re.M), captured.out
    assert "first differing layer is step 1 'conv2' (conv2d_f32)" in captured.err
    assert captured.err.startswith("error: ") and "Traceback" not in captured.err


def test_progress_goes_to_stderr(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(verify, "PROGRESS_INTERVAL", 0.0)
    path = save(two_conv_model(), tmp_path / "m.onnx")
    assert cli.main(["verify", str(path), "--inputs", "3", "--seed", "9"]) == 0
    captured = capsys.readouterr()
    assert "verify: 3/3 inputs compared" in captured.err
    assert captured.out.rstrip().endswith("OK") and "(seed 9)" in captured.out


def test_missing_onnxruntime_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    path = save(two_conv_model(), tmp_path / "m.onnx")
    with pytest.raises(McucompError, match=r"needs onnxruntime.*pip install onnxruntime"):
        verify_model(path, inputs=1, progress=None)


def _ort_outputs(path, x: np.ndarray) -> np.ndarray:
    """onnxruntime's y for each sample of x (a stack along axis 0)."""
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return np.stack([session.run(None, {"x": sample})[0] for sample in x])


def test_data_samples_replace_random_inputs(tmp_path, monkeypatch):
    """The C runs on exactly the file's samples: the leading axis counts them, and each reaches the C as given."""
    path = save(two_conv_model(), tmp_path / "m.onnx")
    x = np.random.default_rng(5).standard_normal((3, 1, 1, 8, 8)).astype(np.float32)
    np.savez(tmp_path / "d.npz", x=x)
    seen = []
    real_run = verify.HostModel.run
    monkeypatch.setattr(verify.HostModel, "run", lambda self, feeds, **kw: seen.append(feeds["x"]) or
                        real_run(self, feeds, **kw))
    result = verify_model(path, data=tmp_path / "d.npz", progress=None)
    assert result.ok and result.inputs == 3 and result.outputs[0].compared == 3 and result.expected == []
    assert len(seen) == 3 and all(np.array_equal(a, b) for a, b in zip(seen, x))


def test_data_single_sample_has_the_input_shape(tmp_path):
    path = save(two_conv_model(), tmp_path / "m.onnx")
    x = np.ones((1, 1, 8, 8), np.float32)
    result = verify_model(path, data={"x": x}, progress=None)
    assert result.inputs == 1 and result.ok


def test_data_expected_outputs_are_compared(tmp_path, capsys):
    path = save(two_conv_model(), tmp_path / "m.onnx")
    x = np.random.default_rng(6).standard_normal((4, 1, 1, 8, 8)).astype(np.float32)
    y = _ort_outputs(path, x)
    np.savez(tmp_path / "good.npz", x=x, y=y)
    assert cli.main(["verify", str(path), "--data", str(tmp_path / "good.npz")]) == 0
    out = capsys.readouterr().out
    assert "4 samples from" in out and "against the expected outputs in" in out
    assert len(re.findall(r"^y\s+float32\s+4\s+0\s", out, re.M)) == 2, out
    y[2, 0, 1, 3, 3] += 1.0
    np.savez(tmp_path / "bad.npz", x=x, y=y)
    result = verify_model(path, data=tmp_path / "bad.npz", progress=None)
    assert result.outputs[0].mismatching == 0
    assert (result.expected[0].mismatching, result.expected[0].first_bad_input) == (1, 2)
    assert not result.ok
    assert cli.main(["verify", str(path), "--data", str(tmp_path / "bad.npz")]) == 3
    err = capsys.readouterr().err
    assert "disagrees with the expected outputs" in err and "first: input #2" in err and "matches onnxruntime" in err


@pytest.mark.parametrize("arrays, message", [
    ({"z": np.zeros((1, 1, 8, 8), np.float32)}, r"key\(s\) 'z' name neither an input nor an output.*Inputs: x"),
    ({"y": np.zeros((1, 2, 8, 8), np.float32)}, r"no array for input\(s\) 'x' \(float32, 1x1x8x8\)"),
    ({"x": np.zeros((1, 1, 8, 8), np.float64)}, r"array 'x' is float64, but input 'x' is float32.*astype"),
    ({"x": np.zeros((2, 1, 8, 8), np.float32)}, r"'x' has shape 2x1x8x8, but input 'x' needs 1x1x8x8 for one "
                                                r"sample or Nx1x1x8x8"),
    ({"x": np.zeros((0, 1, 1, 8, 8), np.float32)}, r"has shape 0x1x1x8x8"),
    ({"x": np.zeros((3, 1, 1, 8, 8), np.float32), "y": np.zeros((2, 1, 2, 8, 8), np.float32)},
     r"different numbers of samples \('x' 3, 'y' 2\)"),
    ({"x": np.zeros((1, 1, 8, 8), np.float32), "y": np.zeros((1, 2, 8, 8), np.int8)},
     r"array 'y' is int8, but output 'y' is float32"),
])
def test_bad_data_is_an_option_error(tmp_path, capsys, arrays, message):
    path = save(two_conv_model(), tmp_path / "m.onnx")
    np.savez(tmp_path / "d.npz", **arrays)
    assert cli.main(["verify", str(path), "--data", str(tmp_path / "d.npz")]) == 1
    err = capsys.readouterr().err
    assert re.search(message, err), err
    assert "d.npz" in err and "Traceback" not in err


@pytest.mark.parametrize("make, message", [
    (lambda p: p.mkdir(), "is not a regular file"),
    (lambda p: None, "does not exist"),
    (lambda p: p.write_text("not a zip"), "cannot be read as an .npz archive"),
    (lambda p: np.save(p.with_suffix(".npy"), np.zeros(3)) or p.with_suffix(".npy").rename(p), "single .npy array"),
    (lambda p: np.savez(p, x=np.array([object()], dtype=object)), "cannot be read as an .npz archive"),
])
def test_unreadable_data_file_is_an_option_error(tmp_path, capsys, make, message):
    path = save(two_conv_model(), tmp_path / "m.onnx")
    data = tmp_path / "d.npz"
    make(data)
    assert cli.main(["verify", str(path), "--data", str(data), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists(), "the file is checked before anything is compiled"


def test_data_and_inputs_exclude_each_other(tmp_path, capsys):
    path = save(two_conv_model(), tmp_path / "m.onnx")
    np.savez(tmp_path / "d.npz", x=np.zeros((1, 1, 8, 8), np.float32))
    assert cli.main(["verify", str(path), "--data", str(tmp_path / "d.npz"), "--inputs", "3"]) == 1
    assert "--inputs and --data" in capsys.readouterr().err


def _ic_qop_input(index: int) -> np.ndarray:
    """verify's random input #index of seed 0 for the shared IC QOperator file (int8 codes, 1x3x32x32)."""
    rng = np.random.default_rng(0)
    spec = [{"name": "input_1_int8", "dtype": "int8", "shape": [1, 3, 32, 32]}]
    for _ in range(index):
        random_feeds(spec, rng)
    return random_feeds(spec, rng)["input_1_int8"]


def _ort_classes(proto, x: np.ndarray, optimized: bool, exposed: list[str] = ()) -> list[int]:
    """onnxruntime's output codes of classes 2-3 on x, with `exposed` added as graph outputs."""
    import onnx
    import onnxruntime

    proto = onnx.ModelProto.FromString(proto.SerializeToString())
    proto.graph.output.extend(onnx.ValueInfoProto(name=n) for n in exposed)
    options = onnxruntime.SessionOptions()
    if not optimized:
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = onnxruntime.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(["Identity_int8"], {"input_1_int8": x})[0].reshape(-1)[2:4].tolist()


def test_ic_qop_tables_explained_by_one_onnxruntime_graph(tmp_path, capsys):
    """IC QOperator, --requant float, input #4 of seed 0: the C gives -122/-45 for classes 2-3, as onnxruntime does
    when the tensors verify exposes let its QDQ fusion (QLinearAdd, QLinearAveragePool) run; the model as written
    (and plain onnxruntime, where the int8 Q/DQ pair is retyped to uint8 instead and nothing fuses) gives -123/-44.
    verify compares every table with the model as written, so the layer-local check on that input finds the
    1-LSB AveragePool rounding the end-to-end table shows, and says so."""
    import onnx

    import mcucomp.host
    from mcucomp.intref._checks import ort_tensor_names
    from mcucomp.pipeline import lower_model
    from shared_models import shared_model

    path = shared_model("mlperf_tiny/ic_resnet8_qop.onnx")
    proto = onnx.load(path)
    x = _ic_qop_input(4)
    lowered = lower_model(path, requant="float")
    exposed = ort_tensor_names(lowered.graph, lowered.order, proto)
    assert _ort_classes(proto, x, optimized=False) == [-123, -44]
    assert _ort_classes(proto, x, optimized=False, exposed=exposed) == [-123, -44]
    assert _ort_classes(proto, x, optimized=True) == [-123, -44]
    assert _ort_classes(proto, x, optimized=True, exposed=exposed) == [-122, -45]
    mcucomp.compile_model(path, tmp_path / "c", name="ic", requant="float")
    c = mcucomp.host.load(tmp_path / "c", layer_hook=False).run({"input_1_int8": x})["Identity_int8"]
    assert c.reshape(-1)[2:4].tolist() == [-122, -45]

    assert cli.main(["verify", str(path), "--requant", "float"]) == 0
    out = capsys.readouterr().out
    assert "against onnxruntime (CPUExecutionProvider, graph optimizations off: the model as written)" in out
    assert re.search(r"Identity_int8 +98\.00% +1 +10/10", out), out
    assert "on inputs #0 and #4 (the first whose outputs differ from onnxruntime's): 16 layers, 0 beyond, worst 1 " \
           "LSB at 'L12_avgpool_f/AveragePool' (avgpool_s8)" in out, out
    assert "end to end: the differences from onnxruntime are the layers' rounding within the bound (worst 1 LSB " \
           "at 'L12_avgpool_f/AveragePool', avgpool_s8)" in out, out
    assert "onnxruntime with its default graph optimizations gives the same outputs as the model as written" in out


def test_onnxruntime_rewrites_are_named_as_such():
    from mcucomp.intref._checks import OrtAgreement

    rewrite = OrtAgreement("y")
    rewrite.add(np.array([[1, 2, 3, 4]]), np.array([[1, 2, 3, 6]]))
    lines = cli._rewrite_lines([rewrite])
    assert lines == ["onnxruntime with its default graph optimizations differs from the model as written on output "
                     "'y': 25.00% of values, max 2 LSB (its rewrites, e.g. QuantizeLinear/DequantizeLinear groups "
                     "fused into QLinear kernels, compute otherwise: not a difference of the C)"]
