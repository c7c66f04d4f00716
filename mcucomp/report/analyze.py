"""`mcucomp analyze`: the memory report of a model as a table, JSON or CSV, without writing C or a toolchain."""

from __future__ import annotations

import csv
import io
import json

from ..npu.report import HEADER as NPU_HEADER
from ..npu.report import totals_text
from .tables import FIT_HEADER, LAYER_HEADER, display_text, fit_rows, layer_rows, placement_rows, summary_items

#: Marks the peak step in the text table (ASCII, so any terminal encoding prints it).
PEAK_MARK = "<- peak"
CSV_HEADER = ["step", "layer", "op", "output_shape", "macs", "weight_bytes", "live_bytes", "call_index",
              "estimated_cycles", "estimated_us", "estimate_quality", "peak"]


def fixed_table(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    """Columns padded to their widest cell, two spaces apart; the columns in `right` right-aligned."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return ["  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in [header, *rows]]


def format_text(report: dict) -> str:
    """The layer table with the peak step marked, the summary and the board fit."""
    lines = [f"analyze '{report['name']}' for {report['board']} (nothing written; live RAM = aligned bytes of "
             "arena buffers live at the step)"]
    lines += fixed_table(LAYER_HEADER[:-1] + [""], layer_rows(report, PEAK_MARK), right={0, 4, 5, 6, 7, 8})
    if report.get("npu_placement"):
        lines.append("")
        lines += npu_placement_lines(report)
    lines.append("")
    summary = summary_items(report)
    width = max(len(label) for label, _ in summary)
    lines += [f"{label + ':':<{width + 1}}  {text}" for label, text in summary]
    lines.append("")
    lines.append(f"board fit ({report['fit']['core']}; code and stack estimated):")
    lines += ["  " + line for line in fixed_table(FIT_HEADER, fit_rows(report), right={2, 3, 4})]
    return "\n".join(lines)


def npu_placement_lines(report: dict) -> list[str]:
    """The NPU placement table (every original layer: CPU or NPU, why, estimated cycles) and its totals."""
    placement = report["npu_placement"]
    rows = placement_rows(placement)
    return ([f"NPU placement ({display_text(report['npu']['label'])}):"]
            + ["  " + line for line in fixed_table(NPU_HEADER, rows, right={4, 5})]
            + ["  " + totals_text(placement)])


def format_json(report: dict) -> str:
    """The report dict as report.json holds it (without the file list: nothing is written)."""
    return json.dumps(report, indent=1)


def format_csv(report: dict) -> str:
    """One CSV row per layer with plain numbers."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for layer in report["layers"]:
        writer.writerow([layer["step"], layer["name"], layer["op"], "x".join(map(str, layer["output_shape"])),
                         layer["macs"], layer["weight_bytes"], layer["live_bytes"],
                         "" if layer["call_index"] is None else layer["call_index"],
                         "" if layer["estimated_cycles"] is None else layer["estimated_cycles"],
                         "" if layer["estimated_us"] is None else f"{layer['estimated_us']:.3f}",
                         layer.get("estimate_quality") or "",
                         int(layer["step"] == report["peak_step"])])
    return buf.getvalue().rstrip("\n")
