"""How far each int8 layer lands from onnxruntime, per requantization mode: the BENCHMARKS.md agreement tables.

    python bench/bench_layer_agreement.py                      # every int8 zoo model and MLPerf Tiny file
    python bench/bench_layer_agreement.py --model unet --seeds 2

For each model (tests/int8_models.py ALL_INT8, 8-bit I/O) and mode (`float`, `fixed`), `mcucomp verify` runs once per
seed, against onnxruntime's model as written (graph optimizations off): its layer-local check feeds every int8 layer
onnxruntime's own inputs (the seed's first random input, and the first whose outputs differ from onnxruntime's) and
records the layer's max |difference| in LSB from onnxruntime's output and how many values differ; its end-to-end
check gives the share of output values equal to onnxruntime's over --inputs inputs (and top-1 for classifiers).
Reported per model and mode: layers checked, how many have max |d| = 0, 1 and more (over all seeds), the largest
share of differing values in one layer, and the end-to-end share equal / top-1 agreement.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from int8_models import ALL_INT8, int8_model_path  # noqa: E402

from mcucomp.pipeline import verify_model  # noqa: E402

MODES = ("float", "fixed")


def measure(path: str, mode: str, seeds: int, inputs: int) -> dict:
    """Per layer the worst max |d| and share differing over the seeds; end to end the outputs' agreement."""
    worst: dict[str, dict] = {}
    equal = elements = top1 = top1_n = 0
    for seed in range(seeds):
        result = verify_model(path, inputs=inputs, seed=seed, io_dtype="int8", requant=mode, progress=None)
        if any(o.mismatching for o in result.outputs):
            raise SystemExit(f"{path} ({mode}, seed {seed}): the C differs from the integer reference")
        for c in result.layer_checks:
            row = worst.setdefault(c.layer, {"op": c.op, "max_lsb": 0, "share": 0.0})
            row["max_lsb"] = max(row["max_lsb"], c.max_lsb)
            row["share"] = max(row["share"], c.differing / c.elements if c.elements else 0.0)
        for a in result.agreement:
            equal, elements = equal + a.equal, elements + a.elements
            top1, top1_n = top1 + a.top1_equal, top1_n + a.top1_compared
    return {"layers": worst, "share_equal": equal / elements if elements else 1.0,
            "top1": f"{top1}/{top1_n}" if top1_n else "-"}


def row(model: str, mode: str, m: dict) -> str:
    """One markdown table row."""
    lsb = [r["max_lsb"] for r in m["layers"].values()]
    worst = max(m["layers"].items(), key=lambda kv: kv[1]["share"], default=("-", {"op": "-", "share": 0.0}))
    return (f"| {model} | {mode} | {len(lsb)} | {lsb.count(0)} | {lsb.count(1)} | {sum(v > 1 for v in lsb)} | "
            f"{100 * worst[1]['share']:.3f}% ({worst[1]['op']}) | {100 * m['share_equal']:.2f}% | {m['top1']} |")


def main(argv: list[str] | None = None) -> int:
    """Measure the chosen models in both modes and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", choices=ALL_INT8)
    parser.add_argument("--seeds", type=int, default=3, help="verify runs per model and mode (seeds 0 to N-1)")
    parser.add_argument("--inputs", type=int, default=10, help="random inputs per seed for the end-to-end share")
    args = parser.parse_args(argv)
    print("| model | mode | layers checked | max \\|d\\| = 0 | = 1 | > 1 | most values differing in a layer | "
          "output values equal to onnxruntime | top-1 agree |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.model or ALL_INT8:
            path = int8_model_path(model, tmp)
            for mode in MODES:
                print(row(model, mode, measure(path, mode, args.seeds, args.inputs)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
