"""mcucomp quantize and --quantize: float PyTorch models to int8 C that agrees with them; the accuracy figures of
`verify --reference` against numpy; bad calibration data refused with nothing written."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import pytorch_models

from mcucomp import cli
from mcucomp.host import load

#: The exporters' own deprecation notices.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")

#: Calibration samples, and the other samples the C is compared on.
CALIBRATION, VALIDATION = 64, 100
#: The issue's bars: top-1 agreement with the float model and mean cosine of the outputs.
TOP1_BAR, COSINE_BAR = 0.95, 0.99


@pytest.fixture(scope="module")
def float_models(tmp_path_factory):
    """{name: (float model path, calibration .npz, validation .npz)}, each model exported when a test first asks
    for it (samples stacked along a leading axis, as `verify --data` takes them; the validation file also holds the
    classes as 'labels')."""
    root = tmp_path_factory.mktemp("float_models")

    class Models(dict):
        """Exports a model on first access."""

        def __missing__(self, name):
            path = pytorch_models.export(name, root / f"{name}.onnx")
            calib, val = root / f"{name}_calib.npz", root / f"{name}_val.npz"
            np.savez(calib, input=pytorch_models.samples(name, CALIBRATION, 1)[0][:, np.newaxis])
            x, classes = pytorch_models.samples(name, VALIDATION, 2)
            np.savez(val, input=x[:, np.newaxis], labels=classes)
            self[name] = (path, calib, val)
            return self[name]

    return Models()


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    """Run the command line in-process; (exit status, stdout, stderr)."""
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _float_outputs(path, x: np.ndarray) -> np.ndarray:
    """onnxruntime's outputs of the float model as written (graph optimizations off, as verify runs it), one row
    per sample."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return np.stack([session.run(None, {"input": sample})[0] for sample in x])


@pytest.mark.parametrize("name", sorted(pytorch_models.QUANTIZED))
def test_quantized_c_agrees_with_the_float_model(name, float_models, tmp_path, capsys):
    """quantize with 64 samples → compiles with no float layer but the float I/O conversions; the host-built C
    agrees with the float model on 100 other samples: top-1 >= 95%, mean cosine >= 0.99."""
    path, calib, val = float_models[name]
    int8 = tmp_path / f"{name}_int8.onnx"
    status, out, err = _run(["quantize", str(path), "--calib", str(calib), "-o", str(int8)], capsys)
    assert status == 0, err
    assert f"on {CALIBRATION} samples" in out and "64/64" in err  # the progress bar went to stderr
    status, out, err = _run(["compile", str(int8), "-o", str(tmp_path / "c")], capsys)
    assert status == 0, err
    report = json.loads((tmp_path / "c" / "report.json").read_text())
    assert [row["op"] for row in report["float_layers"]] == ["quantize_linear", "dequantize_linear"], \
        report["float_layers"]  # the float input's QuantizeLinear and the float output's DequantizeLinear
    host = load(tmp_path / "c")
    x = np.load(val)["input"]
    got = np.stack([host.run({"input": sample})["logits"] for sample in x]).reshape(len(x), -1)
    want = _float_outputs(path, x).reshape(len(x), -1)
    top1 = np.mean(got.argmax(1) == want.argmax(1))
    cosine = np.mean(np.sum(got * want, 1) / np.linalg.norm(got, axis=1) / np.linalg.norm(want, axis=1))
    assert top1 >= TOP1_BAR and cosine >= COSINE_BAR, (name, top1, cosine)


def test_verify_reference_json_matches_numpy(float_models, tmp_path, capsys):
    """verify --reference --json: cosine, SNR, RMSE, max abs error, top-1 agreement and the labels' accuracy equal
    a numpy computation on the C's and the float model's outputs; the per-layer table reaches report.html."""
    path, calib, val = float_models["ds_cnn"]
    int8 = tmp_path / "ds_cnn_int8.onnx"
    assert _run(["quantize", str(path), "--calib", str(calib), "-o", str(int8)], capsys)[0] == 0
    status, out, err = _run(["verify", str(int8), "--data", str(val), "--labels", "labels", "--reference", str(path),
                             "--json", "-o", str(tmp_path / "c")], capsys)
    assert status == 0, err
    figures = json.loads(out)["outputs"]["logits"]
    x, labels = np.load(val)["input"], np.load(val)["labels"]
    host = load(tmp_path / "c")
    c = np.stack([host.run({"input": s})["logits"] for s in x]).reshape(len(x), -1).astype(np.float64)
    r = _float_outputs(path, x).reshape(len(x), -1).astype(np.float64)
    expected = {
        "cosine": np.mean([np.dot(a, b) / np.linalg.norm(a) / np.linalg.norm(b) for a, b in zip(c, r)]),
        "snr_db": 10 * np.log10(np.sum(r ** 2) / np.sum((c - r) ** 2)),
        "rmse": np.sqrt(np.mean((c - r) ** 2)),
        "max_abs_error": np.max(np.abs(c - r)),
        "top1_agreement": np.mean(c.argmax(1) == r.argmax(1)),
        "accuracy_reference": np.mean(r.argmax(1) == labels),
        "accuracy_c": np.mean(c.argmax(1) == labels),
    }
    for key, value in expected.items():
        assert figures[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
    assert figures["samples"] == VALIDATION
    report = json.loads((tmp_path / "c" / "report.json").read_text())
    layers = report["accuracy"]["layers"]
    snrs = [layer["snr_db"] for layer in layers]
    assert len(layers) >= 9 and snrs == sorted(snrs)
    page = (tmp_path / "c" / "report.html").read_text()
    assert "Accuracy against the float model" in page and layers[0]["layer"] in page


def test_compile_with_quantize_equals_quantize_then_compile(float_models, tmp_path, capsys):
    """compile FLOAT --quantize CALIB writes the same C as quantize then compile, plus <name>_int8.onnx, named in
    report.json."""
    path, calib, _ = float_models["ds_cnn"]
    int8 = tmp_path / "ds_cnn_int8.onnx"
    assert _run(["quantize", str(path), "--calib", str(calib), "-o", str(int8)], capsys)[0] == 0
    assert _run(["compile", str(int8), "--name", "ds_cnn", "-o", str(tmp_path / "two")], capsys)[0] == 0
    status, out, err = _run(["compile", str(path), "--quantize", str(calib), "-o", str(tmp_path / "one")], capsys)
    assert status == 0, err
    one, two = tmp_path / "one", tmp_path / "two"
    sources = sorted(p.name for p in two.iterdir() if p.suffix in (".c", ".h"))
    assert sources and sorted(p.name for p in one.iterdir() if p.suffix in (".c", ".h")) == sources
    for name in sources:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    assert (one / "ds_cnn_int8.onnx").read_bytes() == int8.read_bytes()
    report = json.loads((one / "report.json").read_text())
    assert report["quantization"]["file"] == "ds_cnn_int8.onnx" and "ds_cnn_int8.onnx" in report["files"]
    assert report["quantization"]["calibration_samples"] == CALIBRATION


def _calibration_cases(x: np.ndarray) -> dict:
    """Bad calibration data: name → (arrays to save, a phrase the error must contain)."""
    nan = x.copy()
    nan[3, 0, 0, 0, 0] = np.nan
    return {"wrong name": ({"mfcc": x}, "no array for input(s) 'input'"),
            "wrong shape": ({"input": x[:, :, :, :48]}, "has shape"),
            "wrong dtype": ({"input": x.astype(np.float64)}, "is float64"),
            "nan": ({"input": nan}, "NaN"),
            "too few samples": ({"input": x[:4]}, "holds 4 samples")}


@pytest.mark.parametrize("case", ["nan", "too few samples", "wrong dtype", "wrong name", "wrong shape"])
@pytest.mark.parametrize("command", ["quantize", "compile"])
def test_bad_calibration_data(case, command, float_models, tmp_path, capsys):
    """Each bad calibration file: exit 1, one paragraph naming the problem, nothing written."""
    path, calib, _ = float_models["ds_cnn"]
    arrays, phrase = _calibration_cases(np.load(calib)["input"])[case]
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    out = tmp_path / "out"
    argv = (["quantize", str(path), "--calib", str(bad), "-o", str(out)] if command == "quantize" else
            ["compile", str(path), "--quantize", str(bad), "-o", str(out)])
    status, stdout, err = _run(argv, capsys)
    assert status == 1
    assert err.startswith("error: ") and err.count("\n") == 1 and phrase in err, err
    assert "Traceback" not in err and not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.npz"]


def test_quantize_without_calibration_data_refuses(float_models, tmp_path, capsys):
    """No --calib: refused (never random data), nothing written; a directory of .npy files works instead."""
    path, calib, _ = float_models["ds_cnn"]
    status, _, err = _run(["quantize", str(path), "-o", str(tmp_path / "q.onnx")], capsys)
    assert status == 1 and "needs calibration data" in err and not (tmp_path / "q.onnx").exists()
    npy_dir = tmp_path / "calib"
    npy_dir.mkdir()
    np.save(npy_dir / "input.npy", np.load(calib)["input"])
    status, _, err = _run(["quantize", str(path), "--calib", str(npy_dir), "--calib-samples", "16",
                           "-o", str(tmp_path / "q.onnx")], capsys)
    assert status == 0, err and (tmp_path / "q.onnx").exists()


def test_quantize_never_overwrites_a_file_it_did_not_write(float_models, tmp_path, capsys):
    """-o naming the user's own file (or the float model) is refused; a file quantize wrote is replaced."""
    path, calib, _ = float_models["ds_cnn"]
    mine = tmp_path / "mine.onnx"
    mine.write_bytes(b"user data")
    status, _, err = _run(["quantize", str(path), "--calib", str(calib), "-o", str(mine)], capsys)
    assert status == 1 and "was not written by `mcucomp quantize`" in err and mine.read_bytes() == b"user data"
    status, _, err = _run(["quantize", str(path), "--calib", str(calib), "-o", str(path)], capsys)
    assert status == 1 and "is the float model itself" in err
    ours = tmp_path / "ours.onnx"
    for _ in range(2):
        assert _run(["quantize", str(path), "--calib", str(calib), "-o", str(ours)], capsys)[0] == 0


def test_keep_float_leaves_the_node_in_float(float_models, tmp_path, capsys):
    """--keep-float NODE: that node is not quantized (mcucomp then lists it as a float layer); an unknown name is
    an error naming close matches."""
    path, calib, _ = float_models["ds_cnn"]
    status, _, err = _run(["quantize", str(path), "--calib", str(calib), "--keep-float", "/fc/Gemmm",
                           "-o", str(tmp_path / "q.onnx")], capsys)
    assert status == 1 and "'/fc/Gemmm'" in err and "/fc/Gemm" in err
    status, _, err = _run(["compile", str(path), "--quantize", str(calib), "--keep-float", "/fc/Gemm",
                           "-o", str(tmp_path / "c")], capsys)
    assert status == 0, err
    report = json.loads((tmp_path / "c" / "report.json").read_text())
    assert "/fc/Gemm" in [row["layer"] for row in report["float_layers"]]
    assert report["quantization"]["keep_float"] == ["/fc/Gemm"]


def test_quantize_without_onnxruntime_says_how_to_install(float_models, tmp_path, capsys, monkeypatch):
    """onnxruntime missing: one paragraph naming the package to install, exit 1, nothing written."""
    path, calib, _ = float_models["ds_cnn"]
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    status, _, err = _run(["quantize", str(path), "--calib", str(calib), "-o", str(tmp_path / "q.onnx")], capsys)
    assert status == 1 and "pip install 'mcucomp[quantize]'" in err and err.count("\n") == 1
    assert not (tmp_path / "q.onnx").exists()


def test_compiling_a_float_model_shows_the_int8_estimate(float_models, tmp_path, capsys):
    """Without an FPU: both estimated cycle figures and the quantize command; with one: the speed-up in one line."""
    path, _, _ = float_models["ds_cnn"]
    status, out, err = _run(["compile", str(path), "--board", "rpi-pico", "-o", str(tmp_path / "m0")], capsys)
    assert status == 0, err
    no_fpu = [line for line in out.splitlines() if "int8" in line or "quantize" in line]
    assert "(no FPU)" in no_fpu[0] and no_fpu[0].count("estimated") == 2 and "x fewer" in no_fpu[0]
    assert f"mcucomp compile {path} --quantize CALIB.npz" in no_fpu[1]
    float_cycles, int8_cycles = (int(n.replace(",", "")) for n in re.findall(r"(\d[\d,]+) (?:cycles|\(est)",
                                                                              no_fpu[0]))
    assert int8_cycles * 10 < float_cycles  # integer kernels against soft-float ones
    status, out, err = _run(["compile", str(path), "--board", "nucleo-l4r5zi", "-o", str(tmp_path / "m4"), "--force"],
                            capsys)
    assert status == 0, err
    fpu = [line for line in out.splitlines() if "int8 build" in line]
    assert len(fpu) == 1 and "fewer cycles on cortex-m4 (estimated)" in fpu[0]


def test_analyzing_a_float_model_shows_the_int8_estimate(float_models, tmp_path, capsys):
    """analyze prints what compile prints for a float model: without an FPU the float build's and the int8 build's
    estimated cycles and the quantize command (and the float MAC form); not in --json or --csv output."""
    path, _, _ = float_models["ds_cnn"]
    status, out, err = _run(["compile", str(path), "--board", "rpi-pico", "-o", str(tmp_path / "m0")], capsys)
    assert status == 0, err
    start = next(i for i, line in enumerate(out.splitlines()) if line.strip().startswith("float MAC:"))
    compiled = [line.strip() for line in out.splitlines()[start:]]
    assert any("(no FPU)" in line and line.count("estimated") == 2 for line in compiled), compiled
    status, out, err = _run(["analyze", str(path), "--board", "rpi-pico"], capsys)
    assert status == 0, err
    assert out.splitlines()[-len(compiled):] == compiled
    for fmt in ("--json", "--csv"):
        status, out, err = _run(["analyze", str(path), "--board", "rpi-pico", fmt], capsys)
        assert status == 0 and "an int8 build" not in out, err


def test_verify_with_quantize_compares_with_the_float_model(float_models, tmp_path, capsys):
    """verify FLOAT --quantize CALIB: the int8 C checked, and its accuracy against the float model reported."""
    path, calib, val = float_models["gru"]
    status, out, err = _run(["verify", str(path), "--quantize", str(calib), "--data", str(val), "--labels", "labels",
                             "--json"], capsys)
    assert status == 0, err
    result = json.loads(out)
    assert result["reference"] == str(path) and result["layers"]
    figures = result["outputs"]["logits"]
    assert figures["top1_agreement"] >= TOP1_BAR and figures["cosine"] >= COSINE_BAR


def test_quantize_options_without_quantize_are_refused(tmp_path, capsys):
    """--method and the other quantization options need --quantize: exit 1, one paragraph naming them, no OUTDIR."""
    out = tmp_path / "out"
    example = Path(__file__).resolve().parents[1] / "examples" / "tiny_cnn.onnx"
    status, _, err = _run(["compile", str(example), "-o", str(out), "--method", "entropy", "--per-tensor"], capsys)
    assert status == 1 and err.count("\n") == 1 and "--method, --per-tensor only apply with --quantize" in err, err
    assert not out.exists()
