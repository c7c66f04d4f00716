"""OUTDIR/report.html: one self-contained page (inline CSS and SVG) with the summary, memory picture and tables."""

from __future__ import annotations

from html import escape

from .tables import (FIT_HEADER, LAYER_HEADER, TENSOR_HEADER, fit_rows, layer_rows, summary_items,
                            tensor_rows)

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
"""

#: Columns right-aligned per table (by header text).
_NUMERIC = {"step", "MACs", "weight B", "live RAM B", "est. cycles", "est. us", "bytes", "offset", "end", "first step", "last step",
            "needed B", "size B", "used"}


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


def render_report_html(report: dict, svg: str) -> str:
    """The report page for one compiled model; `svg` is memory.svg's text, embedded inline."""
    summary = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in summary_items(report))
    layers = _table("layers", LAYER_HEADER, layer_rows(report), lambda r: "peak" if r[-1] else "")
    tensors = _table("tensors", TENSOR_HEADER, tensor_rows(report), lambda r: "")
    fit = _table("fit", FIT_HEADER, fit_rows(report), lambda r: "" if r[-1] == "yes" else "over")
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
<dl class="summary">{summary}</dl>
<h2>Arena over time</h2>
<p>One rectangle per buffer: x is the schedule step, y the arena offset (0 at the bottom). Hover for details.</p>
<figure>{svg}</figure>
<h2>Layers</h2>
<p>Live RAM: bytes of arena buffers live while the layer runs (aligned sizes). Views (reshape-like) run no code.
Est. cycles and µs: {escape(report['cycle_estimate']['label'])}, at the board clock.</p>
{layers}
<h2>Tensors in the arena</h2>
{tensors}
<h2>Board fit ({escape(report['board'])})</h2>
{fit}
<p>{escape(report['fit']['note'])}</p>
</body>
</html>
"""
