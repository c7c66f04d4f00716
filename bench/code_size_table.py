"""The int8 kernels' code and stack per core as a markdown table, from the committed measurements in
mcucomp/target/code_size.json (which `python bench/measure_code_size.py` writes): `python bench/code_size_table.py`.

BENCHMARKS.md's flash section holds this table between generated-section markers; `python bench/update_readme.py`
refreshes it and tests/test_readme.py fails when it differs from the JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

CODE_SIZE = Path(__file__).resolve().parents[1] / "mcucomp" / "target" / "code_size.json"
#: Kernels of int8 models besides the `*_s8*` ones: lookup tables, layout moves, graph I/O conversions, the NPU call.
INT8_SUPPORT = ("lut8", "transpose", "quantize_linear", "dequantize_linear", "ethosu_region")


def int8_kernel(name: str) -> bool:
    """Whether a runtime kernel serves int8 models (the `*_s8*` kernels and INT8_SUPPORT)."""
    return "_s8" in name or name in INT8_SUPPORT


def table(measured: dict) -> str:
    """Markdown: one row per int8 kernel, one column per core, `code B / stack B` in each cell."""
    cores = sorted(measured["cores"])
    kernels = sorted({k for core in cores for k in measured["cores"][core]["kernels"] if int8_kernel(k)})

    def cell(core: str, kernel: str) -> str:
        """code / stack of one kernel on one core, or - where it is not built for that core."""
        entry = measured["cores"][core]["kernels"].get(kernel)
        return "-" if entry is None else f"{entry['code']:,} / {entry['stack']:,}"

    lines = ["| kernel (code B / stack B) | " + " | ".join(cores) + " |", "|---|" + "---:|" * len(cores)]
    lines += [f"| {kernel} | " + " | ".join(cell(core, kernel) for core in cores) + " |" for kernel in kernels]
    lines.append("| test firmware (startup, harness) | " + " | ".join(
        f"{measured['cores'][core]['firmware_flash']:,} / {measured['cores'][core]['firmware_stack']:,}"
        for core in cores) + " |")
    return "\n".join(lines)


def main() -> int:
    """Print the table."""
    print(table(json.loads(CODE_SIZE.read_text())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
