"""ELF sizes vs. predicted sizes and on-target (QEMU) verification, per shared model and core board.

Run:  python bench/bench_target.py [--inputs N]      (prints the BENCHMARKS.md section as Markdown)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import mcucomp
from mcucomp.target.verify import build_target, verify_on_target

MODELS = Path(__file__).resolve().parents[1].parent / "shared" / "models" / "mlperf_tiny"
SHARED = ["kws_dscnn_qdq", "kws_dscnn_qop", "ic_resnet8_qdq", "ic_resnet8_qop"]
BOARDS = ["nucleo-l4r5zi", "disco-f746ng", "nucleo-h743zi", "nucleo-u575zi", "corstone-300", "nucleo-g0b1re",
          "rpi-pico"]


def row(model: str, board: str, inputs: int, work: Path) -> str:
    """One Markdown table row: sizes, prediction errors, on-target result."""
    out = work / f"{model}-{board}"
    mcucomp.compile_model(MODELS / f"{model}.onnx", out, name="m", board=board)
    sizes = build_target(out, board)
    result = verify_on_target(out, board, inputs=inputs, seed=0)
    s = sizes["sections"]
    verdict = (f"bit-exact {inputs}/{inputs}" if result.ok
               else f"FAIL ({result.status}, {sum(result.mismatching.values())} differ)")
    return (f"| {model} | {board} ({result.machine}) | {s['.text']:,} | {s['.rodata']:,} | {s['.data']:,} | "
            f"{s['.bss']:,} | {sizes['flash_bytes']:,} / {sizes['predicted_flash_bytes']:,} "
            f"({sizes['flash_error_percent']:+.1f}%) | {sizes['ram_bytes']:,} / {sizes['predicted_ram_bytes']:,} "
            f"({sizes['ram_error_percent']:+.1f}%) | {result.stack_high_water} / {result.stack_estimate} | {verdict} |")


def main() -> int:
    """Print the section."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--inputs", type=int, default=5)
    args = parser.parse_args()
    print("| model | board (QEMU) | .text | .rodata | .data | .bss | flash ELF / predicted | RAM ELF / predicted "
          "| stack high-water / estimate | on-target |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for model in SHARED:
            for board in BOARDS:
                print(row(model, board, args.inputs, Path(tmp)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
