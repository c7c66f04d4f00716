"""The estimator's loop counts and its place in analyze/report.json: window sums equal the C loops' iteration counts,
and the estimated figures reach every output format, labelled, with the right memory."""

from __future__ import annotations

import copy
import csv
import io
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_models import save, two_conv_model
from mcucomp import cli
from mcucomp.ops._conv2d_s8.depthwise import DW_DEFER, depthwise_schedule
from mcucomp.ops._cost import window
from mcucomp.perf.estimate import ESTIMATE_LABEL
from mcucomp.pipeline import plan_model
from shared_models import shared_model


def _loop_counts(geom: dict) -> dict[str, int]:
    """Iteration counts of conv2d_s8's general loop for one plane, counted by running it (bounds checks included)."""
    rows = row_taps = taps = inside = 0
    for oy in range(geom["h_out"]):
        for ox in range(geom["w_out"]):
            whole = True
            for ky in range(geom["k_h"]):
                iy = oy * geom["stride_h"] - geom["pad_t"] + ky * geom["dil_h"]
                if not 0 <= iy < geom["h_in"]:
                    whole = False
                    continue
                rows += 1
                for kx in range(geom["k_w"]):
                    row_taps += 1
                    ix = ox * geom["stride_w"] - geom["pad_l"] + kx * geom["dil_w"]
                    if 0 <= ix < geom["w_in"]:
                        taps += 1
                    else:
                        whole = False
            inside += whole
    return {"rows_valid": rows, "row_taps": row_taps, "taps_valid": taps, "inside_pixels": inside}


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(1, 5), st.integers(1, 5), st.integers(1, 3),
       st.integers(1, 3), st.integers(1, 2), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3))
def test_window_sums_equal_the_loop_counts(h, w, kh, kw, sh, sw, dil, pt, pl, pb, pr):
    """rows entered, taps checked, taps read and windows entirely inside, for any 2-D geometry."""
    kh, kw = min(kh, h + pt + pb), min(kw, w + pl + pr)
    oh = (h + pt + pb - dil * (kh - 1) - 1) // sh + 1
    ow = (w + pl + pr - dil * (kw - 1) - 1) // sw + 1
    if oh < 1 or ow < 1:
        return
    geom = {"n": 1, "c_in": 1, "h_in": h, "w_in": w, "c_out": 1, "h_out": oh, "w_out": ow, "k_h": kh, "k_w": kw,
            "stride_h": sh, "stride_w": sw, "dil_h": dil, "dil_w": dil, "pad_t": pt, "pad_l": pl, "group": 1}
    win = window(geom)
    counts = _loop_counts(geom)
    assert (win.rows_valid, win.rows_valid * kw, win.taps_valid, win.inside_pixels) == (
        counts["rows_valid"], counts["row_taps"], counts["taps_valid"], counts["inside_pixels"])
    assert win.pixels == oh * ow and win.taps == kh * kw


def _dw_geom(h, w, c, s, pad) -> dict:
    """A 3x3 depthwise geometry (square stride s, pads `pad` on every side)."""
    oh, ow = (h + 2 * pad - 3) // s + 1, (w + 2 * pad - 3) // s + 1
    return {"n": 1, "c_in": c, "h_in": h, "w_in": w, "c_out": c, "h_out": oh, "w_out": ow, "k_h": 3, "k_w": 3,
            "stride_h": s, "stride_w": s, "dil_h": 1, "dil_w": 1, "pad_t": pad, "pad_l": pad, "group": c}


def test_depthwise_schedule_runs_inside_pairs_and_tables_the_rest():
    """VWW's dw1 (24x24x8, pad 1): per inner row one run of the 10 pairs from column 2 (windows inside), the border
    pairs (0, 1) and (22, 23) from tables; the first and last rows all from tables. Without the slide bodies every
    pixel gets a table."""
    geom = _dw_geom(24, 24, 8, 1, 1)
    assert depthwise_schedule(geom, True) == {"runs": 22, "run_pairs": 220, "pairs": 68, "lone": 0,
                                              "tables_inside": 44, "tables_border": 92}
    assert depthwise_schedule(geom, False) == {"runs": 0, "run_pairs": 0, "pairs": 288, "lone": 0,
                                               "tables_inside": 484, "tables_border": 92}


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.sampled_from([4, 8, 16, DW_DEFER + 4]), st.integers(1, 2),
       st.integers(0, 1), st.booleans())
def test_depthwise_schedule_covers_every_pixel_once(h, w, c, s, pad, slide):
    """Runs, table pairs and lone pixels partition the output pixels; every pixel outside a run gets one table;
    above DW_DEFER channels nothing is paired."""
    geom = _dw_geom(max(h, 3 - 2 * pad), max(w, 3 - 2 * pad), c, s, pad)
    counts = depthwise_schedule(geom, slide)
    pixels = geom["h_out"] * geom["w_out"]
    assert 2 * counts["run_pairs"] + 2 * counts["pairs"] + counts["lone"] == pixels
    assert counts["tables_inside"] + counts["tables_border"] == pixels - 2 * counts["run_pairs"]
    assert counts["runs"] <= counts["run_pairs"] and (slide or counts["runs"] == 0)
    if c > DW_DEFER:
        assert counts["lone"] == pixels


@pytest.fixture(scope="module")
def kws_report():
    """The planned report of the KWS int8 QDQ model on the default board (cortex-m4, its calibration board)."""
    return plan_model(shared_model("mlperf_tiny/kws_dscnn_qdq.onnx"), name="kws").report


def test_report_carries_board_memory_estimates(kws_report):
    """Per layer and total, board memory on the calibration board; µs at the clock; views cost nothing."""
    est = kws_report["cycle_estimate"]
    assert est["memory"] == "board" and est["label"] == ESTIMATE_LABEL and est["core"] == "cortex-m4"
    layers = kws_report["layers"]
    assert kws_report["estimated_total_cycles"] == sum(layer["estimated_cycles"] for layer in layers)
    assert kws_report["estimated_total_cycles_zero_wait"] == sum(layer["estimated_cycles_zero_wait"] for layer in layers)
    for layer in layers:
        if layer["alias"]:
            assert layer["estimated_cycles"] == 0 and layer["kernel_path"] is None
        else:
            assert layer["estimated_cycles"] >= layer["estimated_cycles_zero_wait"] > 0
            assert layer["kernel_path"].startswith(layer["op"] + ".")
        assert layer["estimated_us"] == pytest.approx(layer["estimated_cycles"] / 120.0)
    # the conv layers dominate; the estimate is not a MAC count (cycles per MAC differ between kernel paths)
    per_mac = {layer["kernel_path"]: layer["estimated_cycles"] / layer["macs"] for layer in layers if layer["macs"]}
    depthwise = [v for path, v in per_mac.items() if path.startswith("conv2d_s8.depthwise")]
    assert depthwise and min(depthwise) > per_mac["conv2d_s8.pointwise"], per_mac


def test_other_memory_or_core_is_labelled(tmp_path):
    """A board without flash wait states: the board figure is the zero-wait one. Another M7 board's memory than the
    calibration board's: the zero-wait figure, said so. A core without a fit: no figure."""
    model = shared_model("mlperf_tiny/kws_dscnn_qdq.onnx")
    sparkfun = plan_model(model, name="kws", board="sparkfun-edge").report
    assert sparkfun["cycle_estimate"]["memory"] == "board"
    assert sparkfun["estimated_total_cycles"] == sparkfun["estimated_total_cycles_zero_wait"]
    h7 = plan_model(model, name="kws", board="nucleo-h743zi").report
    assert h7["cycle_estimate"]["memory"] == "zero-wait" and "another board" in h7["cycle_estimate"]["note"]
    assert h7["estimated_total_cycles"] == h7["estimated_total_cycles_zero_wait"]
    m55 = plan_model(model, name="kws", board="corstone-300").report
    assert m55["estimated_total_cycles"] is None and all(layer["estimated_cycles"] is None for layer in m55["layers"])


def test_analyze_prints_estimates_in_every_format(tmp_path, capsys):
    """Text columns and time line, CSV columns, JSON fields."""
    path = save(two_conv_model(), tmp_path / "tc.onnx")
    assert cli.main(["analyze", str(path)]) == 0
    text = capsys.readouterr().out
    assert "est. cycles" in text and "est. us" in text and "estimated (per-kernel cost model" in text
    assert cli.main(["analyze", str(path), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert all(int(r["estimated_cycles"]) > 0 and float(r["estimated_us"]) > 0 for r in rows)
    assert cli.main(["analyze", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["estimated_total_cycles"] == sum(int(r["estimated_cycles"]) for r in rows)
    assert np.isclose(report["cycle_estimate"]["estimated_ms"], report["estimated_total_cycles"] / 120e3)


def _one_node(op: str, n: int, opset: int = 13):
    """A float model (IR version 8 up to opset 20, else 10) of one node `op` named 'l' on a [1, n] tensor."""
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"], name="l")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8 if opset <= 20 else 10
    return model


def test_uncalibrated_paths_are_named(monkeypatch):
    """A kernel path the fit lacks (Swish's, taken out of the stored coefficients: the calibration set covers every
    declared path) gets the generic element estimate and is listed as such, with its quality and a marked figure."""
    from mcucomp.perf import estimate
    from mcucomp.report.tables import cycles_text, layer_rows

    def without_swish(core: str) -> dict:
        """The stored coefficients of the core without the Swish path."""
        coeffs = copy.deepcopy(stored(core))
        del coeffs["paths"]["activation_f32.swish"]
        return coeffs

    stored = estimate.load_coefficients
    monkeypatch.setattr(estimate, "load_coefficients", without_swish)
    report = plan_model(_one_node("Swish", 64, opset=24), name="m").report
    assert report["cycle_estimate"]["uncalibrated_layers"] == ["l"]
    assert report["estimated_total_cycles"] > 0
    assert "outside the calibration set" in cycles_text(report) and "(l)" in cycles_text(report)
    layer = report["layers"][0]
    assert layer["estimate_quality"] == ("uncalibrated: kernel path activation_f32.swish is not in the calibration "
                                         "set (generic element model)")
    assert report["cycle_estimate"]["estimate_quality"].startswith("uncalibrated: 1 of 1 layers")
    assert layer_rows(report)[0][7] == f"~{layer['estimated_cycles']:,}"
    assert cycles_text(report).startswith("~")


def test_shapes_outside_the_fitted_ranges_are_marked(tmp_path, capsys):
    """A Sigmoid inside the calibrated element counts is 'calibrated' and printed bare; one far larger is
    'extrapolated', naming the term and the range, in report.json, analyze's text and CSV, and report.html."""
    inside = plan_model(_one_node("Sigmoid", 64), name="m").report
    assert inside["layers"][0]["estimate_quality"] == "calibrated"
    assert inside["cycle_estimate"]["estimate_quality"] == "calibrated"
    assert not cli.main(["analyze", str(save(_one_node("Sigmoid", 64), tmp_path / "in.onnx"))])
    assert "~" not in capsys.readouterr().out

    path = save(_one_node("Sigmoid", 20000), tmp_path / "out.onnx")
    outside = plan_model(str(path), name="m").report
    quality = outside["layers"][0]["estimate_quality"]
    assert quality.startswith("extrapolated: term ") and "= 20,000 outside fitted range [" in quality, quality
    assert outside["cycle_estimate"]["extrapolated_layers"] == ["l"]
    assert outside["cycle_estimate"]["estimate_quality"].startswith("extrapolated: 1 of 1 layers, 100%")
    assert cli.main(["analyze", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"~{outside['layers'][0]['estimated_cycles']:,}" in text and "~ marks figures outside" in text
    assert cli.main(["analyze", str(path), "--csv"]) == 0
    assert list(csv.DictReader(io.StringIO(capsys.readouterr().out)))[0]["estimate_quality"] == quality
    assert cli.main(["compile", str(path), "-o", str(tmp_path / "c"), "--name", "m"]) == 0
    html = (tmp_path / "c" / "report.html").read_text()
    assert f"~{outside['layers'][0]['estimated_cycles']:,}" in html and "estimate_quality" in html
    assert json.loads((tmp_path / "c" / "report.json").read_text())["layers"][0]["estimate_quality"] == quality


def test_npu_placement_marks_cpu_figures_outside_the_calibration():
    """The NPU placement table and totals put '~' before a CPU estimate that is not calibrated, and only there."""
    from mcucomp.npu.report import _total_quality, totals_text
    from mcucomp.report.tables import placement_rows

    rows = [{"name": "a", "op": "conv2d_s8", "placement": "cpu", "region": None, "placement_reason": "r",
             "cpu_cycles_estimated": 1200, "cpu_estimate_quality": "calibrated", "npu_cycles_vela_estimated": None},
            {"name": "b", "op": "rnn_f32", "placement": "cpu", "region": None, "placement_reason": "r",
             "cpu_cycles_estimated": 3400, "cpu_estimate_quality": "extrapolated: term macs = 9 outside fitted range "
             "[1, 2]", "npu_cycles_vela_estimated": None}]
    assert [r[4] for r in placement_rows({"layers": rows})] == ["1,200", "~3,400"]
    placement = {"layers": rows, "npu_layers": 0, "regions": 0, "cpu_layers": 2, "mode": "auto",
                 "cpu_cycles_estimated": 4600, "cpu_estimate_quality": _total_quality(rows),
                 "region_call_cycles_estimated": 0, "cpu_label": "x", "cpu_hz": 1e8, "npu_cycles_vela_estimated": 0,
                 "npu_label": "y", "accelerator": "ethos-u55-128", "npu_hz": 5e8, "estimated_latency_us": 46.0}
    assert "CPU ~4,600 cycles" in totals_text(placement)
    assert _total_quality(rows[:1]) == "calibrated"
