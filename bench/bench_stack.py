"""The fit check's stack bound against QEMU's painted-stack high-water mark, per model and core board (and an NPU
build on corstone-300): the bound must hold (at or above the mark) and be tight (at most 1.25 x it + 256 B).

Run:  python bench/bench_stack.py      (prints a Markdown table; INPUTS inputs of seed 0 per run)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "perf"))

import mcucomp  # noqa: E402
from cycle_models import CYCLE_MODELS  # noqa: E402
from mcucomp.target.verify import verify_on_target  # noqa: E402
from target_boards import CORE_BOARDS  # noqa: E402

MODELS = ["kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop", "vww96_mbnet_int8"]
#: (board, npu_placement): every core's board with the CPU kernels, then corstone-300 with the Ethos-U55.
BUILDS = [(board, "off") for board in CORE_BOARDS] + [("corstone-300", "max")]
INPUTS = 2


def row(model: str, board: str, npu: str, work: Path) -> str:
    """One Markdown table row: high-water mark, bound, their ratio and whether the bound holds and is tight."""
    out = work / f"{model}-{board}-{npu}"
    report = mcucomp.compile_model(CYCLE_MODELS[model](), out, name="m", board=board, npu_placement=npu).report
    result = verify_on_target(out, board, inputs=INPUTS, seed=0)
    water, bound = result.stack_high_water, result.stack_estimate
    holds = water is not None and water <= bound <= 1.25 * water + 256
    where = f"{board} + Ethos-U55" if npu == "max" else board
    return (f"| {model} | {where} ({report['fit']['core']}) | {water:,} | {bound:,} | {bound / water:.2f} | "
            f"{report['run_frame_bytes']} | {'yes' if holds else 'NO'} |")


def main() -> int:
    """Print the table."""
    print("| model | board (core) | high-water B (QEMU) | bound B | bound / high-water | run frame B "
          "| high-water <= bound <= 1.25 x + 256 |")
    print("|---|---|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        rows = (row(model, board, npu, Path(tmp)) for model in MODELS for board, npu in BUILDS)
        for line in rows:
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
