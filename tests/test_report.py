"""report.json fields and their consistency, memory.svg and report.html."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest
from cli_models import make_model, save
from onnx import TensorProto, helper, numpy_helper
from shared_models import shared_model

import mcucomp
from mcucomp.pipeline import plan_model
from mcucomp.report.svg import FONT, GLYPH, LEFT, TOP, render_memory_svg, short_names

SVG = "{http://www.w3.org/2000/svg}"


def branchy_model():
    """x → two branches (16-channel conv, then 1-channel conv) → Add → Reshape (a view) → Relu → y.

    The file lists both wide convs first, so both 4 KiB intermediates are live at once; running one branch to its
    end before the other halves that, which is the order the memory-aware schedule must pick.
    """
    rng = np.random.default_rng(3)
    inits, nodes = [], []
    for b in ("a", "b"):
        for name, shape in ((f"w{b}1", (16, 1, 3, 3)), (f"w{b}2", (1, 16, 1, 1))):
            inits.append(numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name))
    nodes += [helper.make_node("Conv", ["x", "wa1"], ["wide_a"], name="conv_a1", pads=[1, 1, 1, 1]),
              helper.make_node("Conv", ["x", "wb1"], ["wide_b"], name="conv_b1", pads=[1, 1, 1, 1]),
              helper.make_node("Conv", ["wide_a", "wa2"], ["thin_a"], name="conv_a2"),
              helper.make_node("Conv", ["wide_b", "wb2"], ["thin_b"], name="conv_b2"),
              helper.make_node("Add", ["thin_a", "thin_b"], ["sum"], name="add"),
              helper.make_node("Reshape", ["sum", "shape"], ["flat"], name="flatten"),
              helper.make_node("Relu", ["flat"], ["y"], name="relu")]
    inits.append(numpy_helper.from_array(np.array([1, 64], np.int64), "shape"))
    return make_model(nodes, [("x", TensorProto.FLOAT, [1, 1, 8, 8])], [("y", TensorProto.FLOAT, [1, 64])], inits)


def check_consistency(report: dict) -> None:
    """Steps, live bytes, peak, offsets and call indices agree with each other."""
    layers, tensors, live = report["layers"], report["tensors"], report["live_bytes_per_step"]
    assert [layer["step"] for layer in layers] == list(range(len(report["order"]))) == list(range(len(live)))
    assert [layer["name"] for layer in layers] == report["order"]
    storage = [t for t in tensors if t["alias_of"] is None]
    for step, layer in enumerate(layers):
        at_step = sum(t["aligned_bytes"] for t in storage if t["first_step"] <= step <= t["last_step"])
        assert at_step == live[step] == layer["live_bytes"]
    assert live[report["peak_step"]] == max(live) == report["schedule"]["peak_bytes"]
    assert report["live_lower_bound_bytes"] == max(live) >= report["overlap_lower_bound_bytes"]
    assert report["gap_bytes"] == report["arena_bytes"] - report["overlap_lower_bound_bytes"] >= 0
    assert report["arena_bytes"] >= max(t["offset"] + t["aligned_bytes"] for t in tensors)
    permitted = {frozenset((o["src"], o["dst"])) for o in report["overlaps"]}
    for i, a in enumerate(storage):
        for b in storage[i + 1:]:
            in_time = a["first_step"] <= b["last_step"] and b["first_step"] <= a["last_step"]
            in_space = a["offset"] < b["offset"] + b["bytes"] and b["offset"] < a["offset"] + a["bytes"]
            assert not (in_time and in_space) or frozenset((a["name"], b["name"])) in permitted, (a, b)
    by_name = {t["name"]: t for t in tensors}
    for t in tensors:
        if t["alias_of"] is not None:
            root = by_name[t["alias_of"]]
            assert (t["offset"], t["first_step"], t["last_step"]) == (root["offset"], root["first_step"],
                                                                      root["last_step"])
    calls = [layer["call_index"] for layer in layers if not layer["alias"]]
    assert calls == list(range(len(calls)))
    assert all(layer["call_index"] is None for layer in layers if layer["alias"])
    for layer in layers:
        assert all(o in by_name or o in {io["name"] for io in report["outputs"]} for o in layer["outputs"])


def test_report_json_fields_and_consistency(tmp_path):
    path = save(branchy_model(), tmp_path / "branchy.onnx")
    result = mcucomp.compile_model(path, tmp_path / "out", name="br")
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report == json.loads(json.dumps(result.report))
    for key in ("arena_bytes", "live_lower_bound_bytes", "flash_bytes", "inputs", "outputs", "layers", "tensors",
                "io_placement", "schedule", "placement", "gap_bytes", "peak_step", "live_bytes_per_step"):
        assert key in report, key
    assert set(report["layers"][0]) >= {"name", "op", "output_shape", "macs", "weight_bytes", "live_bytes",
                                        "call_index", "outputs"}
    assert set(report["tensors"][0]) >= {"name", "bytes", "offset", "first_step", "last_step", "kind"}
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(report["files"])
    assert {"memory.svg", "report.html", "report.json"} <= set(report["files"])
    check_consistency(report)
    assert report["io_placement"] == "arena" and report["placement"]
    sched = report["schedule"]
    # File order: x and both 4 KiB intermediates at once. Chosen: one branch to its end first, so its 256-byte output
    # takes the place of the second 4 KiB intermediate (kernel scratch, if any, is the same in both).
    assert sched["order_used"] == "memory-aware"
    assert sched["file_order_peak_bytes"] - sched["peak_bytes"] == 4096 - 256
    order = report["order"]
    assert abs(order.index("conv_a1") - order.index("conv_a2")) == 1
    assert {t["kind"] for t in report["tensors"]} >= {"input", "activation", "output"}
    assert next(t for t in report["tensors"] if t["name"] == "flat")["alias_of"] == "sum"
    assert [layer["call_index"] for layer in report["layers"]] == [0, 1, 2, 3, 4, None, 5]


def test_caller_owned_io_leaves_the_arena():
    report = plan_model(branchy_model(), name="br", io="caller").report
    check_consistency(report)
    assert report["io_placement"] == "caller" and not report["io_in_arena"]
    names = {t["name"] for t in report["tensors"]}
    assert "x" not in names and "y" not in names and "sum" in names
    assert all(io["arena_offset"] is None for io in report["inputs"] + report["outputs"])


def _svg_rects(svg: str) -> tuple[ET.Element, list[ET.Element]]:
    """The parsed document and its buffer rectangles."""
    root = ET.fromstring(svg)
    return root, [r for r in root.iter(f"{SVG}rect") if r.get("class") == "buf"]


@pytest.fixture(scope="module")
def ic_report():
    """The IC ResNet-8 report (has a reshape view and an int8 softmax scratch), planned without writing files."""
    return plan_model(shared_model("mlperf_tiny/ic_resnet8_qdq.onnx")).report


@pytest.fixture(scope="module")
def kws_report():
    """The KWS DS-CNN report: every conv may write over its input, so buffers share bytes at each step."""
    return plan_model(shared_model("mlperf_tiny/kws_dscnn_qdq.onnx")).report


def test_ic_report_kinds_views_and_calls(ic_report):
    check_consistency(ic_report)
    kinds = {t["kind"] for t in ic_report["tensors"]}
    assert kinds == {"input", "activation", "output", "scratch"}
    reshape = next(layer for layer in ic_report["layers"] if layer["alias"])
    assert reshape["call_index"] is None
    assert ic_report["layers"][reshape["step"] + 1]["call_index"] == ic_report["layers"][reshape["step"] - 1][
        "call_index"] + 1


def test_kws_overlaps_are_listed_and_labels_stay_apart(kws_report):
    check_consistency(kws_report)
    names = {t["name"] for t in kws_report["tensors"]}
    assert kws_report["overlaps"] and all({o["src"], o["dst"]} <= names for o in kws_report["overlaps"])
    root = ET.fromstring(render_memory_svg(kws_report))
    boxes = []
    for text in root.iter(f"{SVG}text"):
        if text.get("fill") == "white":
            half = len(text.text) * FONT * GLYPH / 2 + 4  # names at least 8 px apart never read as one
            x, y = float(text.get("x")), float(text.get("y"))
            boxes.append((x - half, y - FONT, x + half, y))
    assert len(boxes) >= 9  # L00_conv .. L08_conv
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)


def test_memory_svg_has_one_rect_per_buffer(ic_report):
    svg = render_memory_svg(ic_report)
    root, rects = _svg_rects(svg)
    storage = [t for t in ic_report["tensors"] if t["alias_of"] is None]
    assert sorted(r.get("data-name") for r in rects) == sorted(t["name"] for t in storage)
    heights = {r.get("data-name"): float(r.get("height")) for r in rects}
    big = max(storage, key=lambda t: t["bytes"])
    small = min(storage, key=lambda t: t["bytes"])
    assert heights[big["name"]] > 100 > heights[small["name"]] > 0
    per_step = {round((float(r.get("width")) + 2) / (t["last_step"] - t["first_step"] + 1), 1)
                for r in rects for t in storage if t["name"] == r.get("data-name")}
    assert len(per_step) == 1
    assert len([r for r in root.iter(f"{SVG}rect") if r.get("class") == "peak"]) == 1
    assert {line.get("class") for line in root.iter(f"{SVG}line")} >= {"arena", "bound"}
    titles = " ".join(t.text or "" for t in root.iter(f"{SVG}title"))
    reshape = next(t for t in ic_report["tensors"] if t["alias_of"] is not None)
    assert f"also holds {reshape['name']}" in titles


class _Tables(HTMLParser):
    """Counts body rows per table class and notes whether an inline svg appears."""

    def __init__(self):
        """No tables seen yet."""
        super().__init__()
        self.rows: dict[str, int] = {}
        self.table = None
        self.in_body = False
        self.svg = 0

    def handle_starttag(self, tag, attrs):
        """Track tables, their bodies and rows."""
        attrs = dict(attrs)
        if tag == "table":
            self.table = attrs.get("class")
            self.rows[self.table] = 0
        elif tag == "tbody":
            self.in_body = True
        elif tag == "tr" and self.in_body:
            self.rows[self.table] += 1
        elif tag == "svg":
            self.svg += 1

    def handle_endtag(self, tag):
        """Leave the table body."""
        if tag == "tbody":
            self.in_body = False


def test_report_html_embeds_svg_and_tables(tmp_path):
    path = save(branchy_model(), tmp_path / "branchy.onnx")
    report = mcucomp.compile_model(path, tmp_path / "out", name="br").report
    html = (tmp_path / "out" / "report.html").read_text()
    svg = (tmp_path / "out" / "memory.svg").read_text()
    assert svg in html
    parser = _Tables()
    parser.feed(html)
    assert parser.svg == 1
    assert parser.rows == {"layers": len(report["layers"]), "tensors": len(report["tensors"]),
                           "fit": len(report["fit"]["regions"])}
    assert html.count('<tr class="peak">') == 1
    assert "<link" not in html and "<script" not in html


def test_report_html_puts_the_verdict_and_fit_first(tmp_path):
    path = save(branchy_model(), tmp_path / "branchy.onnx")
    mcucomp.compile_model(path, tmp_path / "out", name="br")
    html = (tmp_path / "out" / "report.html").read_text()
    order = [html.index(marker) for marker in ('class="verdict fits"', '<table class="fit"', '<dl class="summary"',
                                               "<svg", '<table class="layers"', '<table class="tensors"')]
    assert order == sorted(order)
    assert "Fits nucleo-l4r5zi: RAM " in html and "float layer" not in html
    over = mcucomp.compile_model(path, tmp_path / "small", name="br", board="nucleo-h743zi", arena_region="sram3",
                                 fit_check=False)
    assert over.report["fit"]["arena_region"] == "sram3"
    tiny = plan_model(path, board="nucleo-g0b1re").report
    tiny["fit"]["regions"][0]["region_bytes"] = 100
    from mcucomp.report.html import render_report_html
    page = render_report_html(tiny, "<svg></svg>")
    assert 'class="verdict over"' in page and "Does not fit nucleo-g0b1re" in page and "over by" in page


def test_tensor_table_has_dtype_and_shape(tmp_path):
    from mcucomp.report.tables import TENSOR_HEADER, tensor_rows
    report = plan_model(save(branchy_model(), tmp_path / "b.onnx")).report
    rows = {r[0]: dict(zip(TENSOR_HEADER, r)) for r in tensor_rows(report)}
    assert (rows["wide_a"]["dtype"], rows["wide_a"]["shape"]) == ("float32", "1x16x8x8")
    assert (rows["flat"]["shape"], rows["flat"]["kind"]) == ("1x64", "activation (view)")
    assert all(t["dtype"] and t["shape"] is not None for t in report["tensors"] if t["kind"] != "scratch")


def int8_model_with_float_layer():
    """x int8 → DequantizeLinear → Sqrt (float: unary_f32, no int8 lowering) → QuantizeLinear → y int8."""
    inits = [numpy_helper.from_array(np.array(0.05, np.float32), "s"),
             numpy_helper.from_array(np.array(3, np.int8), "z")]
    nodes = [helper.make_node("DequantizeLinear", ["x", "s", "z"], ["xf"], name="dq"),
             helper.make_node("Sqrt", ["xf"], ["t"], name="float_sqrt"),
             helper.make_node("QuantizeLinear", ["t", "s", "z"], ["y"], name="q")]
    return make_model(nodes, [("x", TensorProto.INT8, [1, 16])], [("y", TensorProto.INT8, [1, 16])], inits)


def test_float_layers_of_an_int8_model_are_flagged(tmp_path, kws_report):
    from mcucomp.report.html import render_report_html
    report = plan_model(save(int8_model_with_float_layer(), tmp_path / "q.onnx")).report
    page = render_report_html(report, "<svg></svg>")
    assert '<div class="warning">' in page and "1 float layer in an int8 model" in page
    assert "<code>float_sqrt</code> (unary_f32)" in page and "<code>dq</code>" not in page
    assert '<div class="warning">' not in render_report_html(kws_report, "<svg></svg>")  # all int8 kernels


def long_chain_model(layers: int = 140):
    """x → Sigmoid/Tanh alternating, `layers` long; tensors named like an exporter's, differing only in the middle."""
    nodes, prev = [], "x"
    for i in range(layers):
        op = "Tanh" if i % 2 else "Sigmoid"
        out = f"model/sequential_1/block_{i:03d}/activation/act:0" if i < layers - 1 else "y"
        nodes.append(helper.make_node(op, [prev], [out], name=f"model/sequential_1/block_{i:03d}/{op}"))
        prev = out
    return make_model(nodes, [("x", TensorProto.FLOAT, [1, 64, 8, 8])], [("y", TensorProto.FLOAT, [1, 64, 8, 8])])


def test_short_names_drop_shared_scope_and_suffix():
    names = ["x", "m/seq/block_001/act/Tanh:0", "m/seq/block_002/act/Tanh:0", "m/seq/block_010/act/Sigmoid:0"]
    assert short_names(names) == {"x": "x", "m/seq/block_001/act/Tanh:0": "block_001/act/Tanh:0",
                                  "m/seq/block_002/act/Tanh:0": "block_002/act/Tanh:0",
                                  "m/seq/block_010/act/Sigmoid:0": "block_010/act/Sigmoid:0"}
    same_end = ["a/b1/c/d", "a/b2/c/d"]
    assert short_names(same_end) == {"a/b1/c/d": "b1", "a/b2/c/d": "b2"}
    assert short_names(["only/one"]) == {"only/one": "only/one"}


def test_long_model_labels_show_name_ends_and_lines_stay_in_view(tmp_path):
    report = plan_model(save(long_chain_model(), tmp_path / "long.onnx")).report
    root = ET.fromstring(render_memory_svg(report))
    width, height = float(root.get("width")), float(root.get("height"))
    assert width > 2000  # 140 steps: a wide picture the page scrolls
    labels = [t.text for t in root.iter(f"{SVG}text") if t.get("fill") == "white"]
    truncated = [label for label in labels if label.startswith("…")]
    assert len(truncated) > 100 and len(set(truncated)) == len(truncated)  # ends differ, heads would not
    blocks = {f"block_{i:03d}" for i in range(140)}
    assert all(any(b.endswith(label[1:]) for b in blocks) for label in truncated)
    limit_labels = [t for t in root.iter(f"{SVG}text") if t.get("class") == "limit-label"]
    assert len(limit_labels) == 3  # arena, lower bound, largest live set
    for text in limit_labels:
        x, y = float(text.get("x")), float(text.get("y"))
        right = x + len(text.text) * FONT * GLYPH
        assert LEFT <= x and right < 1000, text.text  # readable without scrolling a 1000 px wide page
        assert TOP + FONT <= y <= height, text.text
    ys = sorted(float(t.get("y")) for t in limit_labels)
    assert all(b - a >= FONT for a, b in zip(ys, ys[1:]))


def test_uncalibrated_layer_names_are_shown_escaped():
    """The estimate's caveat names the layers outside the calibration set through display_text: a bidi control or
    a newline in a layer name reaches neither the terminal nor report.html raw."""
    from mcucomp.report.tables import cycles_text

    report = {"estimated_total_cycles": 1000,
              "cycle_estimate": {"clock_hz": 1e8, "estimated_ms": 0.01, "note": "zero wait", "label": "estimated",
                                 "uncalibrated_layers": ["a\u2067b", "c\nd"]}}
    text = cycles_text(report)
    assert "\u2067" not in text and "\n" not in text
    assert "a\\u2067b" in text and "c\\x0Ad" in text


@pytest.mark.parametrize("board, form", [("nucleo-l4r5zi", "separate"), ("disco-f746ng", "fused"),
                                         ("nucleo-g0b1re", "separate")])
def test_float_mac_form_is_the_cores_and_reaches_the_emitted_runtime(tmp_path, board, form):
    """report.json names the float multiply-accumulate form of the board's core and the layers it rounds (the
    convs, not the Add or the Relu); the emitted mcu_rt.h fixes MCU_F32_FUSED to it, and the option overrides the
    default."""
    path = save(branchy_model(), tmp_path / "branchy.onnx")
    report = mcucomp.compile_model(path, tmp_path / "out", name="br", board=board).report
    assert report["float_mac"]["form"] == form and report["float_mac"]["why"].startswith("default for cortex-")
    ops = {layer["name"]: layer["op"] for layer in report["layers"]}
    assert report["float_mac"]["layers"] == [n for n in report["order"] if ops[n] == "conv2d_f32"] != []
    rt = (tmp_path / "out" / "br_mcu_rt.h").read_text()
    assert f"#define BR_RT_F32_FUSED {int(form == 'fused')}\n" in rt and "#ifndef BR_RT_F32_FUSED" not in rt
    other = "separate" if form == "fused" else "fused"
    forced = mcucomp.compile_model(path, tmp_path / "forced", name="br", board=board, float_mac=other).report
    assert forced["float_mac"] == {**report["float_mac"], "form": other, "why": "--float-mac option"}
