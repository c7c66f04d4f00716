"""Flash and RAM per MLPerf Tiny model and core, as the fit check predicts them without a toolchain, as a markdown
table: `python bench/flash_per_model.py`.

For each QDQ file of ../shared/models/mlperf_tiny/ (its QOperator twin lowers to the same kernels) on the
calibration boards of the Cortex-M4 and the Cortex-M0+: report.json's `fit` (what `mcucomp analyze` prints as the
board fit): the constant data; the code of the kernels the model calls (mcucomp/target/code_size.json), the library
routines they pull in, the test firmware and the calls; the arena; and the stack estimate (firmware frames, the run
function's frame and the deepest kernel's). BENCHMARKS.md's flash section holds this table between generated-section markers.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcucomp.pipeline import plan_model

MODELS = Path(__file__).resolve().parents[1] / ".." / "shared" / "models" / "mlperf_tiny"
BOARDS = ("nucleo-l4r5zi", "nucleo-g0b1re")


def row(model: Path, board: str) -> str:
    """One table row: the fit check's flash and RAM parts for a model on a board."""
    fit = plan_model(model, name="m", board=board).report["fit"]
    flash, ram = fit["flash_parts"], fit["ram_parts"]
    return (f"| {model.stem} | {board} ({fit['core']}) | {flash['weights']:,} | {flash['code']:,} | "
            f"{fit['flash_bytes']:,} | {ram['arena']:,} | {ram['stack']:,} | {fit['ram_bytes']:,} |")


def main() -> int:
    """Print the table."""
    if not MODELS.is_dir():
        print(f"missing {MODELS}: the shared models directory must sit beside the repository", file=sys.stderr)
        return 1
    print("| model | board (core) | weights B | code B (estimated) | flash B | arena B | stack B (estimated) | RAM B |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for model in sorted(MODELS.glob("*_qdq.onnx")):
        for board in BOARDS:
            print(row(model, board))
    return 0


if __name__ == "__main__":
    sys.exit(main())
