"""`mcucomp profile`: the command-line handler and its text, JSON and CSV output."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import tempfile
from pathlib import Path

from ..errors import OptionError, VerifyError
from ..estimate_quality import CALIBRATED, OUTSIDE_MARK, marked
from .estimate import ESTIMATE_LABEL
from .profile import ProfileResult, profile_compiled

LABEL = "simulated cycles, Arm TRM instruction timings"
TOP_KERNELS = 5


def _error(estimated: int | None, measured: int) -> str:
    """The estimate's signed error against the measurement, or n/a."""
    if estimated is None:
        return "n/a"
    if measured == 0:
        return "n/a" if estimated else "+0.0%"
    return f"{100.0 * (estimated - measured) / measured:+.1f}%"


def _us(cycles: int, clock_hz: int) -> float:
    """Microseconds at the clock."""
    return 1e6 * cycles / clock_hz


def _layer_rows(result: ProfileResult) -> list[dict]:
    """One dict per layer with every printed column."""
    rows = []
    for layer in result.layers:
        measured = result.measured_for_estimate(layer)
        rows.append({"index": layer.call_index, "layer": layer.name, "op": layer.op, "macs": layer.macs,
                     "instructions": layer.instructions, "cycles": layer.cycles,
                     "cycles_zero_wait": layer.cycles_zero_wait,
                     "cycles_per_mac": layer.cycles / layer.macs if layer.macs else None,
                     "share": layer.cycles / result.total_cycles if result.total_cycles else 0.0,
                     "us": _us(layer.cycles, result.clock_hz), "estimated_cycles": layer.estimated_cycles,
                     "estimate_quality": layer.estimate_quality,
                     "estimate_error": _error(layer.estimated_cycles, measured)})
    return rows


def top_kernels(result: ProfileResult) -> list[tuple[str, int, float]]:
    """Kernel ops by total cycles: (op, cycles, share of the total)."""
    by_op: dict[str, int] = {}
    for layer in result.layers:
        by_op[layer.op] = by_op.get(layer.op, 0) + layer.cycles
    ranked = sorted(by_op.items(), key=lambda kv: -kv[1])[:TOP_KERNELS]
    return [(op, c, c / result.total_cycles if result.total_cycles else 0.0) for op, c in ranked]


def format_text(result: ProfileResult) -> str:
    """The per-layer table, the totals and the top kernels."""
    mhz = result.clock_hz / 1e6
    approx = " (approximate table)" if result.approximate else ""
    match = "outputs equal the host's bit for bit" if result.outputs_match_host else "OUTPUTS DIFFER from the host's"
    lines = [f"profile '{result.model}' on {result.board} ({result.core} at {mhz:g} MHz): {LABEL} "
             f"({result.timing_source}){approx}",
             f"  {result.inputs} input(s) (seed {result.seed}), {match}; {result.memory_model}",
             f"  {ESTIMATE_LABEL}: "
             + (f"{result.estimated_memory} figure, error = (estimated - simulated) / simulated; {OUTSIDE_MARK} marks "
                "an estimate outside the estimator's calibration"
                if result.estimated_total_cycles is not None else f"no cycle model fitted for {result.core}")]
    header = ["#", "layer", "op", "MACs", "instructions", "cycles", "cycles/MAC", "share", "µs", "estimated",
              "error"]
    table = [header]
    for r in _layer_rows(result):
        table.append([str(r["index"]), r["layer"], r["op"], f"{r['macs']:,}", f"{r['instructions']:,}",
                      f"{r['cycles']:,}", "-" if r["cycles_per_mac"] is None else f"{r['cycles_per_mac']:.2f}",
                      f"{100 * r['share']:.1f}%", f"{r['us']:,.1f}",
                      "n/a" if r["estimated_cycles"] is None
                      else marked(f"{r['estimated_cycles']:,}", r["estimate_quality"] or CALIBRATED),
                      r["estimate_error"]])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    right = {0, 3, 4, 5, 6, 7, 8, 9, 10}
    for row in table:
        lines.append("  " + "  ".join(c.rjust(w) if i in right else c.ljust(w)
                                      for i, (c, w) in enumerate(zip(row, widths))).rstrip())
    macs = sum(layer.macs for layer in result.layers)
    lines.append(f"total per inference: {result.total_cycles:,} cycles = {1e3 * result.total_cycles / result.clock_hz:.2f}"
                 f" ms with board memory; {result.total_cycles_zero_wait:,} cycles = "
                 f"{1e3 * result.total_cycles_zero_wait / result.clock_hz:.2f} ms at zero wait states; "
                 f"{result.total_instructions:,} instructions"
                 + (f"; {result.total_cycles / macs:.2f} cycles/MAC" if macs else ""))
    if result.estimated_total_cycles is not None:
        outside = any((layer.estimate_quality or CALIBRATED) != CALIBRATED for layer in result.layers)
        total = f"{result.estimated_total_cycles:,}"
        lines.append(f"estimated per inference: {OUTSIDE_MARK + total if outside else total} cycles "
                     f"({_error(result.estimated_total_cycles, result.measured_for_estimate(result))} vs. simulated)")
    lines.append("top kernels: " + ", ".join(f"{op} {c:,} ({100 * s:.1f}%)" for op, c, s in top_kernels(result)))
    if result.untimed_instructions:
        lines.append("instructions without a timing entry (costed 1 cycle): "
                     + ", ".join(f"{k} x{v}" for k, v in sorted(result.untimed_instructions.items())))
    return "\n".join(lines)


def format_json(result: ProfileResult) -> str:
    """The result as JSON (label included)."""
    data = {"label": LABEL, **result.to_dict()}
    data["top_kernels"] = [{"op": op, "cycles": c, "share": s} for op, c, s in top_kernels(result)]
    return json.dumps(data, indent=1)


def format_csv(result: ProfileResult) -> str:
    """The per-layer table as CSV."""
    out = io.StringIO()
    rows = _layer_rows(result)
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["index"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def cmd_profile(args: argparse.Namespace, compile_fn) -> int:
    """mcucomp profile: compile, build the firmware, simulate, compare with the host, print the profile."""
    if args.inputs < 1:
        raise OptionError(f"--inputs {args.inputs}: give at least 1 input to simulate.")
    with tempfile.TemporaryDirectory(prefix="mcucomp-profile-") as tmp:
        if args.out is None:
            args.out = str(Path(tmp) / "out")
        compile_fn(args)
        result = profile_compiled(Path(args.out), args.board, args.inputs, args.seed, progress=sys.stderr)
    print(format_json(result) if args.json else format_csv(result) if args.csv else format_text(result))
    if not result.outputs_match_host:
        bad = ", ".join(f"'{k}' on {v} of {result.inputs} inputs" for k, v in result.mismatching.items() if v)
        raise VerifyError(f"The simulated firmware's outputs differ from the host build's: {bad}. Both run the same C, "
                          "so a difference points at target-dependent arithmetic in a kernel or a simulator bug; "
                          "compare with `mcucomp verify --on-target`.")
    return 0
