"""The report's tables as rows of text, shared by `mcucomp analyze` (table, CSV) and report.html."""

from __future__ import annotations

import unicodedata

from emit_c.escape import visible_escape

from ..estimate_quality import CALIBRATED, OUTSIDE_MARK, marked
from ..npu.report import cycle_cell

LAYER_HEADER = ["step", "layer", "op", "output shape", "MACs", "weight B", "live RAM B", "est. cycles", "est. us",
                "peak"]
TENSOR_HEADER = ["tensor", "kind", "dtype", "shape", "bytes", "offset", "end", "first step", "last step", "alias of"]
#: Tensor dtypes that make a model quantized: its float layers are then worth a warning.
QUANTIZED_DTYPES = ("int8", "uint8")
FIT_HEADER = ["memory", "region", "needed B", "size B", "used", "parts", "fits"]


def display_text(text: str, keep: str = "") -> str:
    """A model name made safe to show in a terminal, HTML or SVG: control, format (bidi overrides), line-separator,
    private-use and unassigned characters (apart from those in `keep`) become visible \\xNN / \\uNNNN escapes, and a
    backslash doubles."""
    out = []
    for ch in text:
        if ch in keep:
            out.append(ch)
        elif ch == "\\":
            out.append("\\\\")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            out.append(visible_escape(ch))
        else:
            out.append(ch)
    return "".join(out)


def _shape(dims: list[int]) -> str:
    """`1x64x25x5`."""
    return "x".join(map(str, dims)) or "scalar"


def _estimated(value, fmt: str, quality: str | None) -> str:
    """An estimated figure ('~' ahead when the fit never saw the layer's path or shape: estimate_quality), or 'n/a'
    when the board's core has no cycle model."""
    return "n/a" if value is None else marked(format(value, fmt), quality or CALIBRATED)


def layer_rows(report: dict, peak_mark: str = "peak") -> list[list[str]]:
    """Per layer: step, name, op, output shape, MACs, weight bytes, live bytes at its step, estimated cycles and
    microseconds, the peak mark."""
    return [[str(layer["step"]), display_text(layer["name"]), layer["op"] + (" (view)" if layer["alias"] else ""),
             _shape(layer["output_shape"]), f"{layer['macs']:,}", f"{layer['weight_bytes']:,}",
             f"{layer['live_bytes']:,}", _estimated(layer["estimated_cycles"], ",", layer.get("estimate_quality")),
             _estimated(layer["estimated_us"], ",.1f", layer.get("estimate_quality")),
             peak_mark if layer["step"] == report["peak_step"] else ""]
            for layer in report["layers"]]


def cycles_text(report: dict) -> str:
    """The estimated time per inference: cycles, ms at the board clock, which memory, how it is estimated."""
    est = report["cycle_estimate"]
    total = report["estimated_total_cycles"]
    if total is None:
        return f"n/a ({est['note']})"
    mhz = est["clock_hz"] / 1e6
    rough = est["uncalibrated_layers"]
    shown = ", ".join(display_text(name) for name in rough[:3]) + (", ..." if len(rough) > 3 else "")
    caveat = (f"; {len(rough)} layer(s) of kernel paths outside the calibration set estimated from element counts "
              f"only ({shown})" if rough else "")
    quality = est.get("estimate_quality", CALIBRATED)
    if quality != CALIBRATED:
        caveat += (f"; {OUTSIDE_MARK} marks figures outside the calibration (estimate quality: {quality}; "
                   "report.json gives each layer's estimate_quality)")
    return (f"{marked(f'{total:,}', quality)} cycles = {marked(format(est['estimated_ms'], '.2f'), quality)} ms at "
            f"{mhz:g} MHz ({est['note']}); {est['label']}{caveat}")


def tensor_rows(report: dict) -> list[list[str]]:
    """Per arena tensor and scratch buffer, by first step then offset: placement and lifetime."""
    tensors = sorted(report["tensors"], key=lambda t: (t["first_step"], t["offset"], t["alias_of"] is not None))
    return [[display_text(t["name"]), t["kind"] + (" (view)" if t["alias_of"] else ""), t["dtype"] or "bytes",
             "" if t["shape"] is None else _shape(t["shape"]), f"{t['bytes']:,}", f"{t['offset']:,}",
             f"{t['offset'] + t['bytes']:,}", str(t["first_step"]), str(t["last_step"]),
             display_text(t["alias_of"] or "")]
            for t in tensors]


def float_layers(report: dict) -> list[dict]:
    """The layers that run a float kernel (op name ending in _f32) in a model with int8/uint8 tensors; [] otherwise."""
    if not any(t["dtype"] in QUANTIZED_DTYPES for t in report["tensors"]):
        return []
    return [layer for layer in report["layers"] if layer["op"].endswith("_f32")]


def fit_verdict(report: dict) -> tuple[bool, str]:
    """Whether the model fits the board and one sentence saying so, with the totals and the fullest region."""
    fit = report["fit"]
    over = [u for u in fit["regions"] if u["bytes"] > u["region_bytes"]]
    totals = f"RAM {fit['ram_bytes']:,} B, flash {fit['flash_bytes']:,} B"
    if over:
        where = "; ".join(f"{u['memory']} region '{u['region']}' needs {u['bytes']:,} B of {u['region_bytes']:,} B, "
                          f"over by {u['bytes'] - u['region_bytes']:,} B" for u in over)
        return False, f"Does not fit {report['board']} ({totals}): {where}."
    fullest = max(fit["regions"], key=lambda u: u["bytes"] / u["region_bytes"])
    return True, (f"Fits {report['board']}: {totals}; fullest region '{fullest['region']}' "
                  f"{100.0 * fullest['bytes'] / fullest['region_bytes']:.1f}% used.")


def fit_rows(report: dict) -> list[list[str]]:
    """Per memory region used: what it holds, bytes needed and available, share used, the parts, whether it fits."""
    rows = []
    for use in report["fit"]["regions"]:
        need, have = use["bytes"], use["region_bytes"]
        parts = " + ".join(f"{k} {v:,}" for k, v in use["parts"].items())
        rows.append([use["memory"], use["region"], f"{need:,}", f"{have:,}", f"{100.0 * need / have:.1f}%", parts,
                     "yes" if need <= have else f"NO, over by {need - have:,} B"])
    return rows


def _percent(part: int, whole: int) -> str:
    """part as a percentage of whole, or 'n/a'."""
    return f"{100.0 * part / whole:+.1f}%" if whole else "n/a"


def _io_text(report: dict) -> str:
    """Where graph inputs and outputs live."""
    if report["io_placement"] == "caller":
        return "caller-owned buffers outside the arena (--io caller)"
    where = ", ".join(f"{display_text(io['name'])} @ {io['arena_offset']:,}"
                      for io in report["inputs"] + report["outputs"])
    return f"inside the arena (--io arena; {where})"


def summary_items(report: dict) -> list[tuple[str, str]]:
    """(label, text) lines: arena, live set, lower bound, gap, schedule, placement, flash, MACs, I/O, board."""
    arena, live, sched = report["arena_bytes"], report["live_lower_bound_bytes"], report["schedule"]
    bound, peak = report["overlap_lower_bound_bytes"], report["peak_step"]
    peak_at = f" at step {peak} '{display_text(report['layers'][peak]['name'])}'" if peak is not None else ""
    why = (f"the largest live set less what {len(report['overlaps'])} overlap permissions of in-place kernels can "
           "save" if bound < live else "the largest live set")
    saved = sched["file_order_peak_bytes"] - sched["peak_bytes"]
    how = "file order kept" if sched["order_used"] == "file" else f"{sched['order_used']} order saves {saved:,} B"
    return [
        ("arena", f"{arena:,} B"),
        ("largest live set", f"{live:,} B{peak_at}"),
        ("lower bound", f"{bound:,} B ({why})"),
        ("gap", f"{report['gap_bytes']:,} B ({_percent(report['gap_bytes'], bound)}) above the lower bound"),
        ("schedule", f"peak {sched['peak_bytes']:,} B in the chosen order vs {sched['file_order_peak_bytes']:,} B "
                     f"in the model file's order ({how})"),
        ("placement", report["placement"] or "n/a"),
        ("weights", f"{report['weights_bytes']:,} B of constant data in flash"),
        ("MACs", f"{report['macs']:,}"),
        ("time", cycles_text(report)),
        ("graph I/O", _io_text(report)),
        ("board", f"{report['board']} ({report['fit']['core']})"),
        ("arena region", f"{report['fit']['arena_region']} ({report['fit']['arena_region_why']})"),
        ("weights region", f"{report['fit']['weights_region']} ({report['fit']['weights_region_why']})"),
    ]


def placement_rows(placement: dict) -> list[list[str]]:
    """The per-layer placement table of an NPU build as text cells (mcucomp.npu.report.HEADER's columns; model
    text through display_text)."""
    return [[display_text(r["name"]), r["op"], r["placement"].upper(), r["region"] or "",
             cycle_cell(r["cpu_cycles_estimated"], r.get("cpu_estimate_quality")),
             cycle_cell(r["npu_cycles_vela_estimated"]),
             display_text(r.get("placement_reason", ""))] for r in placement["layers"]]
