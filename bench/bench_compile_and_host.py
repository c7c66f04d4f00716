"""Compile time, memory and host inference time (generated C vs onnxruntime) per model, as a markdown table.

    python bench/bench_compile_and_host.py                 # every ../shared/models/mlperf_tiny/*.onnx
    python bench/bench_compile_and_host.py examples/tiny_cnn.onnx --runs 200

Host times are medians of --runs calls from Python on the same random input, taken in the same process one after
the other: the generated C built by mcucomp.host (-O2 -ffp-contract=off, no layer hook) and onnxruntime's CPU
provider with one intra-op thread (a microcontroller has one core; default options would use every core).
A model that does not compile gets its error in the table instead of figures.
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

import mcucomp
from mcucomp.errors import McucompError
from mcucomp.host import load
from mcucomp.verify import random_feeds

REPO = Path(__file__).resolve().parents[1]
DEFAULT_MODELS = REPO / ".." / "shared" / "models" / "mlperf_tiny"


def _median_seconds(fn, runs: int) -> float:
    """Median wall time of `runs` calls of fn (after one warm-up call)."""
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _ort_session(path: Path):
    """onnxruntime on the CPU provider with a single intra-op thread."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def bench_model(path: Path, runs: int) -> list[str]:
    """One table row: name, compile ms, arena, lower bound, flash, host C µs, onnxruntime µs, ratio."""
    with tempfile.TemporaryDirectory(prefix="mcucomp-bench-") as tmp:
        start = time.perf_counter()
        try:
            report = mcucomp.compile_model(path, tmp).report
        except McucompError as exc:
            return [path.name, "error: " + exc.message.replace("|", "\\|"), "", "", "", "", "", ""]
        compile_ms = (time.perf_counter() - start) * 1e3
        host = load(tmp, layer_hook=False)
        feeds = random_feeds(report["inputs"], np.random.default_rng(0))
        session = _ort_session(path)
        c_s = _median_seconds(lambda: host.run(feeds), runs)
        ort_s = _median_seconds(lambda: session.run(None, feeds), runs)
    return [path.name, f"{compile_ms:.0f}", f"{report['arena_bytes']:,}", f"{report['live_lower_bound_bytes']:,}",
            f"{report['flash_bytes']:,}", f"{c_s * 1e6:.0f}", f"{ort_s * 1e6:.0f}", f"{c_s / ort_s:.2f}"]


def main(argv: list[str] | None = None) -> int:
    """Benchmark the given models (default: the MLPerf Tiny models) and print the markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="ONNX files (default: shared mlperf_tiny/*.onnx)")
    parser.add_argument("--runs", type=int, default=100, help="timed calls per model and engine (default 100)")
    args = parser.parse_args(argv)
    models = args.models or sorted(DEFAULT_MODELS.resolve().glob("*.onnx"))
    if not models:
        print(f"error: no models given and none found in {DEFAULT_MODELS.resolve()}", file=sys.stderr)
        return 1
    import onnxruntime

    print(f"host: {platform.platform()}, python {platform.python_version()}, "
          f"onnxruntime {onnxruntime.__version__} (1 thread), mcucomp {mcucomp.__version__}, median of {args.runs}")
    print()
    print("| model | compile ms | arena B | live lower bound B | flash B | host C µs | onnxruntime µs | C / ort |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in models:
        print("| " + " | ".join(bench_model(path, args.runs)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
