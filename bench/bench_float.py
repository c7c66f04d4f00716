"""Float models on the simulator: cycles per MAC per model and core against the float-speed targets, per kernel path,
beside the published float figures of X-CUBE-AI, CMSIS-DSP and TFLite Micro, and the estimator's error.

    python bench/bench_float.py                          # the five models on the M4, M33, M7 and M0+
    python bench/bench_float.py --core cortex-m4 --model har_cnn1d
    python bench/bench_float.py --json results.json      # also keep the raw figures
    python bench/bench_float.py --load results.json --markdown   # BENCHMARKS.md's float sections from kept figures

The models are tests/pytorch_models.py FLOAT_BENCH, exported from PyTorch (seeded weights, BatchNorm statistics
measured on their data, the head fitted by ridge regression) into --models-dir, where later runs with the same
tests/pytorch_models.py reuse them. Each is compiled for the core's board (mcucomp/perf/calibration.py
CALIBRATION_BOARDS) with the core's default float multiply-accumulate form and profiled on the instruction-level
simulator (one seeded random input): cycles simulated from the Arm manuals' instruction timings, zero-wait (the
targets' condition) and with the board's flash wait states. A model that does not fit a board (e.g. ResNet-8's float
arena on the M0+ board's 144 KB) is reported as not run.
The anchors are other tools' figures measured elsewhere on hardware; ours are simulated.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pytorch_models  # noqa: E402
from bench_cycles import error_table, estimate, path_table, run  # noqa: E402

from mcucomp.errors import FitError  # noqa: E402

CORES = ("cortex-m4", "cortex-m33", "cortex-m7", "cortex-m0plus")

#: (core, model) -> the float-speed target in simulated zero-wait cycles per MAC.
TARGETS = {("cortex-m4", "resnet8"): 3.0, ("cortex-m4", "ds_cnn"): 4.0, ("cortex-m4", "mobilenetv2_035"): 4.5,
           ("cortex-m4", "har_cnn1d"): 3.5, ("cortex-m4", "gru_kws"): 3.5, ("cortex-m7", "resnet8"): 1.5}

#: The architectures' names in the tables.
TITLES = {"resnet8": "ResNet-8 CIFAR", "ds_cnn": "KWS DS-CNN", "mobilenetv2_035": "MobileNetV2-0.35 96x96",
          "har_cnn1d": "1-D CNN (activity recognition)", "gru_kws": "GRU keyword model (49 steps, 128 units)"}

#: Whole-model float figures measured elsewhere on hardware (../shared/docs/ANCHORS.md): core -> (tool, model and
#: chip, cycles per MAC).
MODEL_ANCHORS = {"cortex-m4": ("X-CUBE-AI 3.3, a float CNN, STM32F401", 8.8),
                 "cortex-m7": ("X-CUBE-AI 4.0, MNIST CNN conv layers, STM32F746", 5.5)}

#: Kernel figures measured elsewhere on hardware (../shared/docs/ANCHORS.md): (our kernel family, core, the
#: anchor, its cycles per MAC).
KERNEL_ANCHORS = [("gemm_f32", "cortex-m4", "CMSIS-DSP arm_mat_mult_f32 64x64, STM32F407", "7.3"),
                  ("conv2d_f32", "cortex-m7", "TFLite Micro reference float conv, STM32F746", "8-16")]


def export_models(names, models_dir: Path) -> dict[str, Path]:
    """{name: the float ONNX export}, exported into models_dir unless already there (file names carry a digest of
    tests/pytorch_models.py, so an edited model is exported again)."""
    models_dir.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(Path(pytorch_models.__file__).read_bytes()).hexdigest()[:12]
    paths = {}
    for name in names:
        paths[name] = models_dir / f"{name}-{digest}.onnx"
        if not paths[name].exists():
            pytorch_models.export(name, paths[name])
    return paths


def per_mac(cycles: float, macs: int) -> float:
    """Cycles per MAC."""
    return cycles / max(macs, 1)


def model_table(rows: list[dict], skipped: dict) -> list[str]:
    """Simulated cycles/MAC per model (rows) and core (columns), zero-wait / board memory, with the targets."""
    cores = [c for c in CORES if any(r["core"] == c for r in rows) or any(k[0] == c for k in skipped)]
    by_key = {(r["model"], r["core"]): r for r in rows}
    models = list(dict.fromkeys([r["model"] for r in rows] + [k[1] for k in skipped]))
    lines = ["| model | MACs | " + " | ".join(cores) + " | target (zero-wait) |",
             "|---|---:|" + "---:|" * len(cores) + "---|"]
    for model in models:
        macs = next((r["macs"] for r in rows if r["model"] == model), 0)
        cells = []
        for core in cores:
            r = by_key.get((model, core))
            if r is None:
                cells.append("not run" if (core, model) in skipped else "")
                continue
            zero_wait = per_mac(r["cycles_zero_wait"], r["macs"])
            target = TARGETS.get((core, model))
            mark = "" if target is None else " (met)" if zero_wait <= target else " (over)"
            cells.append(f"{zero_wait:.2f} / {per_mac(r['cycles'], r['macs']):.2f}{mark}")
        targets = ", ".join(f"{core.removeprefix('cortex-')} <= {t}" for (core, m), t in TARGETS.items() if m == model)
        lines.append(f"| {TITLES.get(model, model)} | {macs:,} | " + " | ".join(cells) + f" | {targets} |")
    return lines


def family_per_mac(rows: list[dict], family: str, core: str) -> float | None:
    """Zero-wait cycles/MAC over every layer of kernel `family` (e.g. gemm_f32) on `core`; None without one."""
    cycles = macs = 0
    for r in rows:
        for layer in r["layers"] if r["core"] == core else []:
            if layer["macs"] and layer["path"].split(".")[0] == family:
                cycles += layer["cycles_zero_wait"]
                macs += layer["macs"]
    return per_mac(cycles, macs) if macs else None


def anchor_tables(rows: list[dict]) -> list[str]:
    """Our simulated figures beside the anchors measured elsewhere on hardware: per model, then per kernel family."""
    lines = ["| model | core | ours (simulated, zero-wait) | anchor (measured on hardware) | anchor / ours |",
             "|---|---|---:|---|---:|"]
    for r in rows:
        if r["core"] in MODEL_ANCHORS:
            tool, anchor = MODEL_ANCHORS[r["core"]]
            ours = per_mac(r["cycles_zero_wait"], r["macs"])
            lines.append(f"| {TITLES.get(r['model'], r['model'])} | {r['core']} | {ours:.2f} | {tool}: {anchor} | "
                         f"{anchor / ours:.2f}x |")
    lines += ["", "| kernel | core | ours (simulated, zero-wait) | anchor (measured on hardware) |",
              "|---|---|---:|---|"]
    for family, core, tool, anchor in KERNEL_ANCHORS:
        ours = family_per_mac(rows, family, core)
        lines.append(f"| {family} (all its paths) | {core} | {'not run' if ours is None else f'{ours:.2f}'} | "
                     f"{tool}: {anchor} |")
    return lines


def sections(rows: list[dict], skipped: dict) -> list[str]:
    """BENCHMARKS.md's float sections: models against the targets, kernel paths, anchors, the estimator's error."""
    parts = [
        ("Float models: cycles per MAC", model_table(rows, skipped),
         "Simulated cycles per MAC, zero-wait / board memory, each core with its default float multiply-accumulate "
         "form (report.json `float_mac`); the targets are zero-wait."
         + "".join(f" Not run: {model} on {core}: {why}." for (core, model), why in skipped.items())),
        ("Float kernel paths: cycles per MAC", path_table(rows, "cycles_zero_wait"),
         "Simulated zero-wait cycles per MAC per kernel path over the layers with MACs of the float models above."),
        ("Float against X-CUBE-AI, CMSIS-DSP and TFLite Micro", anchor_tables(rows),
         "The anchors are those tools' figures as measured elsewhere on hardware, on the chips named "
         "(../shared/docs/ANCHORS.md); ours are simulated from the Arm manuals' timings. anchor / ours above 1 means "
         "fewer cycles per MAC than the anchor; the float-speed targets ask for 3x X-CUBE-AI's on the M4."),
        ("Float models: the estimator's error", error_table(rows),
         "The estimator's error against the simulator per model and core, board memory: the model's total / its "
         "worst layer among those taking >= 5% of the cycles (bench/bench_cycles.py's table)."),
    ]
    lines: list[str] = []
    for title, table, text in parts:
        lines += [f"### {title}", "", "<!-- recorded: python bench/bench_float.py --json F -->", *table,
                  "<!-- /recorded -->", "", *textwrap.wrap(text, 118), ""]
    return lines[:-1]


def main(argv: list[str] | None = None) -> int:
    """Profile the chosen models and cores (or load kept figures) and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--core", action="append", choices=CORES)
    parser.add_argument("--model", action="append", choices=pytorch_models.FLOAT_BENCH)
    parser.add_argument("--json", type=Path, help="write the raw figures here")
    parser.add_argument("--load", type=Path, metavar="JSON", help="print the tables from an earlier --json file")
    parser.add_argument("--markdown", action="store_true", help="print BENCHMARKS.md's float sections")
    parser.add_argument("--models-dir", type=Path, default=Path(tempfile.gettempdir()) / "mcucomp-float-bench",
                        help="where the PyTorch exports are written and reused (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.load:
        saved = json.loads(args.load.read_text())
        rows, skipped = saved["rows"], {tuple(k.split(" ", 1)): why for k, why in saved["skipped"].items()}
    else:
        rows, skipped = [], {}
        paths = export_models(args.model or pytorch_models.FLOAT_BENCH, args.models_dir)
        for core in args.core or CORES:
            for name, path in paths.items():
                try:
                    rows.append(estimate(run(core, name, str(path)), str(path)))
                except FitError as exc:  # e.g. ResNet-8's float arena on the M0+ board
                    skipped[(core, name)] = str(exc).split(". ")[0]
                    print(f"{core} {name}: not run, {skipped[(core, name)]}", file=sys.stderr, flush=True)
                else:
                    r = rows[-1]
                    print(f"{core} {name}: {per_mac(r['cycles_zero_wait'], r['macs']):.2f} cycles/MAC zero-wait, "
                          f"estimate {100 * r['model_error']:+.1f}% ({r['seconds']:.0f} s)", file=sys.stderr,
                          flush=True)
                if args.json:  # after every model: a long run keeps what it has
                    args.json.write_text(json.dumps({"rows": rows, "skipped": {" ".join(k): why for k, why in
                                                                               skipped.items()}}, indent=1))
    if args.markdown:
        print("\n".join(sections(rows, skipped)))
        return 0
    tables = (model_table(rows, skipped), path_table(rows, "cycles_zero_wait"), anchor_tables(rows), error_table(rows))
    print("\n\n".join("\n".join(table) for table in tables))
    return 0


if __name__ == "__main__":
    sys.exit(main())
