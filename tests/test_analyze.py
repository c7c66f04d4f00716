"""`mcucomp analyze`: the layer table, JSON and CSV, the fit check and errors, all without writing files."""

from __future__ import annotations

import csv
import io
import json
from importlib import resources

import pytest
from cli_models import make_model, save, two_conv_model
from onnx import TensorProto, helper

from mcucomp import cli
from mcucomp.report.analyze import PEAK_MARK
from mcucomp.pipeline import plan_model


@pytest.fixture
def model_path(tmp_path):
    """The two-conv model saved in its own directory."""
    (tmp_path / "models").mkdir()
    return save(two_conv_model(), tmp_path / "models" / "tc.onnx")


def _run(capsys, *args) -> tuple[int, str, str]:
    """cli.main in this process: exit status, stdout, stderr."""
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_table_marks_the_peak_and_summarizes(model_path, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "")  # no C compiler or any other tool is needed
    code, out, err = _run(capsys, "analyze", model_path, "--io", "caller")
    assert code == 0 and err == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models"]
    report = plan_model(model_path, io="caller").report
    lines = out.splitlines()
    header = lines.index(next(line for line in lines if line.startswith("step")))
    assert lines[header].split()[:4] == ["step", "layer", "op", "output"]
    rows = lines[header + 1: header + 1 + len(report["layers"])]
    for row, layer in zip(rows, report["layers"]):
        cells = row.split()
        assert cells[:4] == [str(layer["step"]), layer["name"], layer["op"], "x".join(map(str, layer["output_shape"]))]
        assert cells[4:7] == [f"{layer['macs']:,}", f"{layer['weight_bytes']:,}", f"{layer['live_bytes']:,}"]
        assert row.endswith(PEAK_MARK) == (layer["step"] == report["peak_step"])
    assert out.count(PEAK_MARK) == 1
    tail = lines[header + 1 + len(report["layers"]):]
    summary = dict(line.split(":  ", 1) for line in tail if ":  " in line and not line.startswith(" "))
    summary = {k: v.strip() for k, v in summary.items()}
    assert summary["arena"] == f"{report['arena_bytes']:,} B"
    assert summary["largest live set"].startswith(f"{report['live_lower_bound_bytes']:,} B at step ")
    assert summary["lower bound"].startswith(f"{report['overlap_lower_bound_bytes']:,} B (")
    assert summary["gap"].startswith(f"{report['gap_bytes']:,} B")
    assert f"vs {report['schedule']['file_order_peak_bytes']:,} B in the model file's order" in summary["schedule"]
    assert summary["weights"].startswith(f"{report['weights_bytes']:,} B")
    assert summary["graph I/O"].startswith("caller-owned buffers outside the arena")
    fit = [line.split() for line in tail if line.startswith("  RAM ") or line.startswith("  flash ")]
    assert [row[:4] for row in fit] == [[use["memory"], use["region"], f"{use['bytes']:,}", f"{use['region_bytes']:,}"]
                                        for use in report["fit"]["regions"]]
    assert len(fit) == 2 and summary["arena region"].startswith(report["fit"]["arena_region"] + " (")


def test_json_is_the_report_and_csv_the_layers(model_path, capsys):
    code, out, _ = _run(capsys, "analyze", model_path, "--json")
    assert code == 0
    report = json.loads(out)
    assert report == json.loads(json.dumps(plan_model(model_path).report))
    assert "files" not in report and report["io_placement"] == "arena"
    code, out, _ = _run(capsys, "analyze", model_path, "--csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["layer"] for r in rows] == [layer["name"] for layer in report["layers"]]
    assert [int(r["live_bytes"]) for r in rows] == report["live_bytes_per_step"]
    assert [int(r["macs"]) for r in rows] == [layer["macs"] for layer in report["layers"]]
    assert [r["peak"] for r in rows].count("1") == 1 and rows[report["peak_step"]]["peak"] == "1"
    code, _, err = _run(capsys, "analyze", model_path, "--json", "--csv")
    assert code == 1 and err.startswith("error: ") and "not allowed with" in err


def test_fit_failure_exits_4_unless_disabled(model_path, capsys, tmp_path):
    text = resources.files("boards").joinpath("nucleo-g0b1re.toml").read_text()
    tiny = tmp_path / "tiny.toml"
    tiny.write_text(text.replace("size = 147_456", "size = 1_024"))
    code, out, err = _run(capsys, "analyze", model_path, "--board", tiny)
    assert code == 4
    assert err.startswith("error: Model 'tc' does not fit board") and "RAM region 'sram' holds 1,024 B" in err
    assert "NO, over by" in out and PEAK_MARK in out
    code, out, err = _run(capsys, "analyze", model_path, "--board", tiny, "--no-fit-check")
    assert code == 0 and err == "" and "NO, over by" in out


def test_errors_behave_like_compile(tmp_path, capsys):
    code, out, err = _run(capsys, "analyze", tmp_path / "missing.onnx")
    assert (code, out) == (1, "") and err.startswith("error: ") and "does not exist" in err
    node = helper.make_node("NonMaxSuppression", ["boxes", "scores"], ["selected"], name="nms_node")
    model = make_model([node], [("boxes", TensorProto.FLOAT, [1, 5, 4]), ("scores", TensorProto.FLOAT, [1, 1, 5])],
                       [("selected", TensorProto.INT64, [1, 3])])
    code, out, err = _run(capsys, "analyze", save(model, tmp_path / "nms.onnx"))
    assert (code, out) == (2, "") and "'nms_node' (ai.onnx::NonMaxSuppression)" in err and "Traceback" not in err
