"""Speed of the cycle simulator (`mcucomp profile`): wall time per model and board, and simulated instructions per
second. Prints a Markdown table for BENCHMARKS.md ("Cycle simulator speed").

    python bench/bench_simulator.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mcucomp  # noqa: E402
from mcucomp.perf.profile import profile_compiled  # noqa: E402

MODELS = REPO.parent / "shared" / "models" / "mlperf_tiny"
CASES = [("kws_dscnn_qdq", "nucleo-l4r5zi"), ("kws_dscnn_qdq", "nucleo-u575zi"), ("kws_dscnn_qop", "nucleo-g0b1re"),
         ("kws_dscnn_qdq", "disco-f746ng"), ("ic_resnet8_qdq", "nucleo-l4r5zi")]


def main() -> None:
    """Profile each case once (1 input) and print wall times."""
    print("| model | board (core) | simulated instructions | simulation wall s | process CPU s | M instr per CPU s | "
          "profile wall s (compile, host and firmware builds, simulation) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for model, board in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            started = time.monotonic()
            mcucomp.compile_model(MODELS / f"{model}.onnx", Path(tmp) / "m", name="m", board=board)
            cpu = time.process_time()
            r = profile_compiled(Path(tmp) / "m", board, inputs=1)
            cpu = time.process_time() - cpu   # this process only: simulation and host run, not the compilers
            wall = time.monotonic() - started
        print(f"| {model} | {board} ({r.core}) | {r.simulated_instructions:,} | {r.simulation_seconds:.1f} | "
              f"{cpu:.1f} | {r.simulated_instructions / cpu / 1e6:.0f} | {wall:.1f} |", flush=True)


if __name__ == "__main__":
    main()
