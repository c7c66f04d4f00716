"""Compile time, memory and host inference time (generated C vs onnxruntime) per model, as a markdown table.

    python bench/bench_compile_and_host.py                 # shared mlperf_tiny/*.onnx + float KWS and IC models
    python bench/bench_compile_and_host.py examples/tiny_cnn.onnx --runs 200

Compile time is the median wall time of --compiles full compiles (ONNX to C files and report.json, no host build).
Memory is report.json's arena_bytes, live_lower_bound_bytes and flash_bytes, next to TFLM's planned arena for the
same int8 model (shared/docs/ANCHORS.md; TFLM was measured on int8 models only). Host times are medians of --runs
calls from Python on the same random input, in the same process, alternating call by call: the generated C built by
mcucomp.host (-O2 -ffp-contract=off, no layer hook) and onnxruntime's CPU provider with one intra-op thread (a
microcontroller has one core; default options would use every core). The float models are the MLPerf Tiny
architectures with seeded He-initialized weights from tests/float_models.py. A model that does not compile (or whose
C does not build on the host) gets its error in the table instead of figures.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

import mcucomp
from mcucomp.errors import McucompError
from mcucomp.host import load
from mcucomp.verify import random_feeds

REPO = Path(__file__).resolve().parents[1]
DEFAULT_MODELS = REPO / ".." / "shared" / "models" / "mlperf_tiny"
sys.path.insert(0, str(REPO / "tests"))

from float_models import FLOAT_MODELS  # noqa: E402

#: TFLM's planned activation arena ("head") for the int8 MLPerf Tiny models, from shared/docs/ANCHORS.md.
TFLM_ARENA = {"kws_dscnn": 16_000, "ic_resnet8": 49_152}
#: The float models in the default run.
DEFAULT_FLOAT = ("kws_f32", "ic_f32")
HEADER = ("| model | compile ms (median of {c}) | arena B | live lower bound B | TFLM arena B | flash B | host C µs "
          "| onnxruntime µs (1 thread) | C / ort |")


def _median_seconds_interleaved(fns, runs: int) -> list[float]:
    """Median wall time of `runs` calls of each function, calls alternating between them (after one warm-up call
    each), so load from other processes falls on both alike."""
    for fn in fns:
        fn()
    times = [[] for _ in fns]
    for _ in range(runs):
        for fn, samples in zip(fns, times):
            start = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - start)
    return [statistics.median(samples) for samples in times]


def _ort_session(model: Path | onnx.ModelProto):
    """onnxruntime on the CPU provider with a single intra-op thread."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    source = str(model) if isinstance(model, Path) else model.SerializeToString()
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])


def _tflm_arena(label: str) -> str:
    """TFLM's arena for an int8 MLPerf Tiny model by its file name, else n/a."""
    family = next((f for f in TFLM_ARENA if label.startswith(f) and "f32" not in label), None)
    return f"{TFLM_ARENA[family]:,}" if family else "n/a"


def bench_model(label: str, model: Path | onnx.ModelProto, runs: int, compiles: int) -> list[str]:
    """One table row: label, compile ms, arena, lower bound, TFLM arena, flash, host C µs, onnxruntime µs, ratio."""
    with tempfile.TemporaryDirectory(prefix="mcucomp-bench-") as tmp:
        compile_s = []
        try:
            for i in range(compiles):
                start = time.perf_counter()
                report = mcucomp.compile_model(model, Path(tmp) / str(i), name="m").report
                compile_s.append(time.perf_counter() - start)
            host = load(Path(tmp) / "0", layer_hook=False)
        except McucompError as exc:
            return [label, "error: " + exc.message.replace("|", "\\|"), "", "", "", "", "", "", ""]
        feeds = random_feeds(report["inputs"], np.random.default_rng(0))
        session = _ort_session(model)
        c_s, ort_s = _median_seconds_interleaved([lambda: host.run(feeds), lambda: session.run(None, feeds)], runs)
    return [label, f"{statistics.median(compile_s) * 1e3:.0f}", f"{report['arena_bytes']:,}",
            f"{report['live_lower_bound_bytes']:,}", _tflm_arena(label), f"{report['flash_bytes']:,}",
            f"{c_s * 1e6:,.0f}", f"{ort_s * 1e6:,.0f}", f"{c_s / ort_s:.2f}"]


def main(argv: list[str] | None = None) -> int:
    """Benchmark the given models (default: the MLPerf Tiny models and the float ones) and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path,
                        help="ONNX files (default: shared mlperf_tiny/*.onnx and the float KWS and IC models)")
    parser.add_argument("--runs", type=int, default=100, help="timed calls per model and engine (default 100)")
    parser.add_argument("--compiles", type=int, default=3, help="compiles per model for the median (default 3)")
    args = parser.parse_args(argv)
    if args.models:
        models = [(p.name, p) for p in args.models]
    else:
        shared = sorted(DEFAULT_MODELS.resolve().glob("*.onnx"))
        if not shared:
            print(f"error: no models given and none found in {DEFAULT_MODELS.resolve()}", file=sys.stderr)
            return 1
        models = [(p.name, p) for p in shared]
        models += [(f"{key} (tests/float_models.py)", FLOAT_MODELS[key]()) for key in DEFAULT_FLOAT]
    import onnxruntime

    print(f"host: {platform.platform()}, {platform.processor() or platform.machine()}, python "
          f"{platform.python_version()}, onnxruntime {onnxruntime.__version__} (1 thread), "
          f"mcucomp {mcucomp.__version__}, median of {args.runs} runs")
    print()
    print(HEADER.format(c=args.compiles))
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, model in models:
        print("| " + " | ".join(bench_model(label, model, args.runs, args.compiles)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
