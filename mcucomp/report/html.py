"""OUTDIR/report.html: one self-contained page (inline CSS and SVG) with the summary, memory picture and tables."""

from __future__ import annotations

from html import escape

from ..estimate_quality import OUTSIDE_MARK
from ..npu.report import CPU_LABEL, NPU_LABEL, totals_text
from ..npu.report import HEADER as NPU_HEADER
from .sensitivity_svg import render_sensitivity_svg
from .tables import (FIT_HEADER, LAYER_HEADER, TENSOR_HEADER, fit_rows, fit_verdict, float_layers, layer_rows,
                     placement_rows, summary_items, tensor_rows)

#: File name of the page in OUTDIR.
REPORT_HTML = "report.html"

_CSS = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; font-size: 14px; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.4em 0; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: left; white-space: nowrap; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.peak td { background: #fff3c4; font-weight: bold; }
tr.over td { background: #fbd5d0; }
dl.summary { display: grid; grid-template-columns: max-content auto; gap: 2px 1em; }
dl.summary dt { font-weight: bold; } dl.summary dd { margin: 0; }
figure { margin: 0; overflow-x: auto; }
.verdict { font-size: 1.15em; font-weight: bold; padding: 0.5em 0.8em; border-radius: 4px; margin: 0.6em 0; }
.verdict.fits { background: #dff0d8; border: 1px solid #8cc47a; }
.verdict.over { background: #fbd5d0; border: 1px solid #d9534f; }
.warning { background: #fff3c4; border: 1px solid #e0a800; padding: 0.4em 0.8em; border-radius: 4px; }
"""

#: Columns right-aligned per table (by header text).
_NUMERIC = {"step", "MACs", "weight B", "live RAM B", "est. cycles", "est. us", "bytes", "offset", "end", "first step",
            "last step", "needed B", "size B", "used", "samples", "cosine", "SNR dB", "RMSE", "max abs err", "CPU cycles (estimated)", "NPU cycles (Vela-estimated)"}


def _table(cls: str, header: list[str], rows: list[list[str]], row_class) -> str:
    """An HTML table; row_class(row) gives each row's class ('' for none)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = "".join(f'<td class="num">{escape(c)}</td>' if h in _NUMERIC else f"<td>{escape(c)}</td>"
                        for h, c in zip(header, row))
        rc = row_class(row)
        body.append(f'<tr class="{rc}">{cells}</tr>' if rc else f"<tr>{cells}</tr>")
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>\n' + "\n".join(body) + "\n</tbody></table>"


def _float_warning(report: dict) -> str:
    """A warning block listing the float layers of an int8 model ('' when there are none)."""
    layers = float_layers(report)
    if not layers:
        return ""
    items = "".join(f"<li>step {layer['step']} <code>{escape(layer['name'])}</code> ({escape(layer['op'])})</li>"
                    for layer in layers)
    return (f'<div class="warning"><p><b>{len(layers)} float layer{"s" * (len(layers) != 1)} in an int8 model.</b> '
            f"{'They run' if len(layers) > 1 else 'It runs'} float32 kernels: slower than int8 ones and 4 bytes per "
            "element in the arena. A "
            "QuantizeLinear/DequantizeLinear pair the quantizer did not fold, or an op without an int8 kernel, "
            f"usually causes this.</p><ul>{items}</ul></div>")


def _npu_section(report: dict) -> str:
    """The NPU placement table and its totals ('' without an NPU)."""
    placement = report.get("npu_placement")
    if not placement:
        return ""
    table = _table("npu", NPU_HEADER, placement_rows(placement), lambda r: "" if r[2] == "NPU" else "cpu")
    return (f"<h2>NPU placement</h2>\n<p>{escape(report['npu']['label'])}. CPU cycles are {escape(CPU_LABEL)}; NPU "
            f"cycles are {escape(NPU_LABEL)} (Vela's own estimate, compiling the layer alone); the two are only "
            f"combined as time.</p>\n{table}\n<p>{escape(totals_text(placement))}</p>")


def _accuracy_section(report: dict) -> str:
    """The accuracy against the float reference (`verify --reference`) and the per-layer sensitivity chart ('' when
    report.json has no "accuracy")."""
    accuracy = report.get("accuracy")
    if not accuracy:
        return ""
    header = ["output", "samples", "cosine", "SNR dB", "RMSE", "max abs err", "top-1 agree"]

    def shown(value, fmt):
        """value formatted; '-' for None."""
        return "-" if value is None else format(value, fmt)

    rows = [[name, str(o["samples"]), f"{o['cosine']:.5f}", "inf" if o["snr_db"] is None else f"{o['snr_db']:.1f}",
             f"{o['rmse']:.4g}", f"{o['max_abs_error']:.4g}", shown(o["top1_agreement"], ".1%")]
            for name, o in accuracy["outputs"].items()]
    chart = render_sensitivity_svg(accuracy["layers"])
    layers = (f"<p>Per-layer sensitivity: the SNR of each quantized tensor against the float model's tensor, under "
              f"onnxruntime on {accuracy['layer_samples']} samples, worst first. `--keep-float NODE` keeps a "
              f"layer in float.</p>\n<figure>{chart}</figure>") if chart else ""
    return (f"<h2>Accuracy against the float model</h2>\n<p>The C's outputs against "
            f"<code>{escape(accuracy['reference'])}</code> under onnxruntime.</p>\n"
            + _table("accuracy", header, rows, lambda r: "") + "\n" + layers)


def render_report_html(report: dict, svg: str) -> str:
    """The report page for one compiled model; `svg` is memory.svg's text, embedded inline.

    The verdict, the board fit and the totals come first; the picture and the long tables after."""
    summary = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in summary_items(report))
    layers = _table("layers", LAYER_HEADER, layer_rows(report), lambda r: "peak" if r[-1] else "")
    tensors = _table("tensors", TENSOR_HEADER, tensor_rows(report), lambda r: "")
    fit = _table("fit", FIT_HEADER, fit_rows(report), lambda r: "" if r[-1] == "yes" else "over")
    fits, verdict = fit_verdict(report)
    name = escape(report["name"])
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{name}: mcucomp memory report</title>
<style>{_CSS}</style>
</head>
<body>
<h1>{name}: memory report</h1>
<p>mcucomp {escape(report['mcucomp_version'])}, board {escape(report['board'])}, model SHA-256
<code>{escape(report['model_sha256'])}</code>.</p>
<p class="verdict {'fits' if fits else 'over'}">{escape(verdict)}</p>
{fit}
<p>{escape(report['fit']['note'])}</p>
{_float_warning(report)}
{_npu_section(report)}
{_accuracy_section(report)}
<h2>Summary</h2>
<dl class="summary">{summary}</dl>
<h2>Arena over time</h2>
<p>One rectangle per buffer: x is the schedule step, y the arena offset (0 at the bottom). Hover for details.</p>
<figure>{svg}</figure>
<h2>Layers</h2>
<p>Live RAM: bytes of arena buffers live while the layer runs (aligned sizes). Views (reshape-like) run no code.
Est. cycles and µs: {escape(report['cycle_estimate']['label'])}, at the board clock; {escape(OUTSIDE_MARK)} marks a
figure whose kernel path or loop counts lie outside what the estimator was fitted on (report.json: estimate_quality).
</p>
{layers}
<h2>Tensors in the arena</h2>
{tensors}
</body>
</html>
"""
