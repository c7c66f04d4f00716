"""Cycles per inference on the simulator, model x core, with the estimator's error: the BENCHMARKS.md cycles tables.

    python bench/bench_cycles.py                       # the full matrix (about 30 min on a loaded machine)
    python bench/bench_cycles.py --core cortex-m4 --model kws_dscnn_qdq
    python bench/bench_cycles.py --json results.json   # also keep the raw figures
    python bench/bench_cycles.py --estimate-error --reestimate results.json   # BENCHMARKS' "Estimator error" table

Every model is compiled for the core's board (mcucomp/perf/calibration.py CALIBRATION_BOARDS) and profiled on the
instruction-level simulator (one seeded random input). Cycles are simulated from the Arm manuals' instruction
timings: zero-wait, and with the board's flash wait states ("board memory"). The estimator's error is its total
against the simulator's (board memory, summed over the layers) and the worst layer among those taking >= 5% of the
cycles. A second table
gives simulated cycles per MAC per kernel path (layers with MACs only). `--estimate-error` prints instead the
estimator's table: per model and core the estimated and simulated cycles, the error, the worst layer taking >= 5% of
the cycles and the estimate's quality (whether every layer lies inside the calibrated ranges).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "perf"))

from cycle_models import CYCLE_MODELS  # noqa: E402

from mcucomp.boards import load_board  # noqa: E402
from mcucomp.errors import FitError  # noqa: E402
from mcucomp.perf.calibration import CALIBRATION_BOARDS  # noqa: E402
from mcucomp.perf.estimate import BIG_LAYER_SHARE, accuracy_failures, check_layers, estimate_model  # noqa: E402
from mcucomp.pipeline import profile_model  # noqa: E402
from mcucomp.pipeline import default_requant, lower_model  # noqa: E402


def run(core: str, model_name: str, source=None) -> dict:
    """Profile one model (CYCLE_MODELS[model_name], or `source`: a path or ModelProto) on the core's board: totals
    and per-layer simulated cycles (estimates added by estimate)."""
    board = load_board(CALIBRATION_BOARDS[core])
    t0 = time.time()
    result = profile_model(source or CYCLE_MODELS[model_name](), board, inputs=1, name="m")
    return {
        "model": model_name, "core": core, "board": board["id"], "clock_hz": board["clock_hz"],
        "macs": sum(layer.macs for layer in result.layers), "cycles": result.total_cycles,
        "cycles_zero_wait": result.total_cycles_zero_wait, "outputs_match_host": result.outputs_match_host,
        "layers": [{"name": layer.name, "op": layer.op, "macs": layer.macs, "cycles": layer.cycles,
                    "cycles_zero_wait": layer.cycles_zero_wait} for layer in result.layers],
        "seconds": time.time() - t0,
    }


def estimate(row: dict, source=None) -> dict:
    """The row with today's estimator figures (board memory) and its errors against the simulated cycles (the model
    from CYCLE_MODELS, or `source` as run took it)."""
    board = load_board(row["board"])
    low = lower_model(source or CYCLE_MODELS[row["model"]](), alignment=board["alignment"], requant=default_requant(board))
    estimate = estimate_model(low.graph, low.order, board)
    est = {e.name: e for e in estimate.layers}
    for layer in row["layers"]:
        layer["path"], layer["estimated"] = est[layer["name"]].path, est[layer["name"]].cycles
    model_error, checks = check_layers([(la["name"], la["op"], la["cycles"], la["estimated"]) for la in row["layers"]])
    worst = max((c for c in checks if c.share >= BIG_LAYER_SHARE), key=lambda c: abs(c.error))
    return {**row, "estimated_cycles": sum(la["estimated"] for la in row["layers"]), "model_error": model_error,
            "worst_layer": worst.name, "worst_layer_op": worst.op, "worst_layer_error": worst.error,
            "estimate_quality": estimate.quality,
            "within_tolerance": not accuracy_failures(model_error, checks)}


def model_table(rows: list[dict]) -> list[str]:
    """The model x core markdown table: per model its MACs, and per core (with its board and clock) the simulated
    cycles per MAC zero-wait / with the board's memory, and the milliseconds per inference with the board's memory."""
    cores = list(dict.fromkeys(r["core"] for r in rows))
    boards = {r["core"]: f"{r['core']} ({r['board']}, {r['clock_hz'] / 1e6:g} MHz)" for r in rows}
    cells: dict[str, dict[str, str]] = defaultdict(dict)
    macs: dict[str, int] = {}
    for r in rows:
        macs[r["model"]] = r["macs"]
        cells[r["model"]][r["core"]] = (f"{r['cycles_zero_wait'] / max(r['macs'], 1):.2f} / "
                                        f"{r['cycles'] / max(r['macs'], 1):.2f} ({1e3 * r['cycles'] / r['clock_hz']:.1f} ms)")
    lines = ["| model | MACs | " + " | ".join(boards[c] for c in cores) + " |", "|---|---:|" + "---|" * len(cores)]
    lines += [f"| {model} | {macs[model]:,} | " + " | ".join(by_core.get(c, "does not fit") for c in cores) + " |"
              for model, by_core in cells.items()]
    return lines


def error_table(rows: list[dict]) -> list[str]:
    """The estimator's error per model and core (board memory) as a markdown table, models by cores: the model's
    error / its worst layer among those taking >= 5% of the cycles ("over" where either is beyond its tolerance)."""
    cores = list(dict.fromkeys(r["core"] for r in rows))
    cells: dict[str, dict[str, str]] = defaultdict(dict)
    for r in rows:
        flag = "" if r["within_tolerance"] else " over"
        cells[r["model"]][r["core"]] = f"{100 * r['model_error']:+.1f}% / {100 * r['worst_layer_error']:+.1f}%{flag}"
    lines = ["| model | " + " | ".join(cores) + " |", "|---|" + "---|" * len(cores)]
    lines += [f"| {model} | " + " | ".join(by_core.get(c, "not run") for c in cores) + " |"
              for model, by_core in cells.items()]
    within = sum(r["within_tolerance"] for r in rows)
    lines += ["", f"{within} of {len(rows)} model x core pairs within the tolerances (model 10%, layers with >= 5% "
                  "of the cycles 20%)."]
    return lines


def path_table(rows: list[dict], key: str = "cycles") -> list[str]:
    """Simulated cycles per MAC per kernel path and core over every layer with MACs: board memory, or zero-wait with
    key="cycles_zero_wait"."""
    cores = sorted({r["core"] for r in rows})
    sums: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for r in rows:
        for layer in r["layers"]:
            if layer["macs"]:
                acc = sums[layer["path"]][r["core"]]
                acc[0] += layer[key]
                acc[1] += layer["macs"]
    lines = ["| kernel path | " + " | ".join(cores) + " |", "|---|" + "---|" * len(cores)]
    for path in sorted(sums):
        cells = [f"{sums[path][c][0] / sums[path][c][1]:.1f}" if sums[path][c][1] else "" for c in cores]
        lines.append(f"| {path} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the chosen matrix and print both tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--core", action="append", choices=sorted(CALIBRATION_BOARDS))
    parser.add_argument("--model", action="append", choices=sorted(CYCLE_MODELS))
    parser.add_argument("--json", type=Path, help="write the raw figures here")
    parser.add_argument("--estimate-error", action="store_true",
                        help="print the estimator's error table (BENCHMARKS' Estimator error) instead")
    parser.add_argument("--reestimate", type=Path, metavar="JSON",
                        help="take the simulated cycles from an earlier --json file (same simulator and kernels) and "
                             "only redo the estimates, e.g. after a refit")
    args = parser.parse_args(argv)
    if args.reestimate:
        rows = [estimate(r) for r in json.loads(args.reestimate.read_text())]
    else:
        rows = []
        for core in args.core or ["cortex-m4", "cortex-m33", "cortex-m0plus", "cortex-m7"]:
            for name in args.model or list(CYCLE_MODELS):
                try:
                    rows.append(estimate(run(core, name)))
                except FitError as exc:  # e.g. float IC ResNet-8's 192 KB arena on the G0B1RE's 144 KB
                    print(f"{core} {name}: skipped, {exc}", file=sys.stderr, flush=True)
                    continue
                r = rows[-1]
                print(f"{core} {name}: {r['cycles']:,} cycles, estimate {100 * r['model_error']:+.1f}%, worst layer "
                      f"{r['worst_layer']} {100 * r['worst_layer_error']:+.1f}% ({r['seconds']:.0f} s)",
                      file=sys.stderr, flush=True)
                if args.json:  # after every model: a long run keeps what it has
                    args.json.write_text(json.dumps(rows, indent=1))
    if args.estimate_error:
        print("\n".join(error_table(rows)))
        return 0
    print("\n".join(model_table(rows)))
    print()
    print("\n".join(path_table(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
