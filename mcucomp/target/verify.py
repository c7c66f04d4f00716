"""build-target (firmware for the board's memory map, sizes vs. prediction) and on-target verification under QEMU."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..boards import load_board
from ..host import load
from ..verify import random_feeds
from .build import Firmware, build_firmware, section_sizes
from .memory_map import board_memory_map, qemu_memory_map
from .run import EXIT_MEANINGS, run_firmware

#: Extra stack the QEMU firmware reserves above the estimate, so a low estimate shows in the high-water mark
#: instead of corrupting the arena.
QEMU_STACK_MARGIN = 16384
FLASH_SECTIONS = (".text", ".rodata", ".ARM.exidx", ".data")
RAM_SECTIONS = (".data", ".bss", ".stack")


def elf_sizes(fw: Firmware) -> dict:
    """The ELF's sections and its flash and RAM totals."""
    sections = section_sizes(fw.elf)
    return {"sections": {s: sections.get(s, 0) for s in (".text", ".rodata", ".data", ".bss", ".stack")},
            "flash_bytes": sum(sections.get(s, 0) for s in FLASH_SECTIONS),
            "ram_bytes": sum(sections.get(s, 0) for s in RAM_SECTIONS)}


def build_target(model_dir: Path, board_id: str | None) -> dict:
    """Link model_dir's C with the test firmware for the board's own memory map; sizes next to the prediction."""
    model_dir = Path(model_dir).resolve()
    report = json.loads((model_dir / "report.json").read_text())
    board = load_board(board_id or report["board"])
    fit = report["fit"]
    fw = build_firmware(model_dir, model_dir / "firmware", board, board_memory_map(board), fit["ram_parts"]["stack"])
    sizes = elf_sizes(fw)
    result = {"board": board["id"], "elf": str(fw.elf), "command": fw.command, **sizes,
              "predicted_flash_bytes": fit["flash_bytes"], "predicted_ram_bytes": fit["ram_bytes"],
              "flash_error_percent": 100.0 * (fit["flash_bytes"] - sizes["flash_bytes"]) / sizes["flash_bytes"],
              "ram_error_percent": 100.0 * (fit["ram_bytes"] - sizes["ram_bytes"]) / sizes["ram_bytes"]}
    (model_dir / "firmware" / "target.json").write_text(json.dumps(result, indent=1))
    return result


@dataclass
class OnTargetResult:
    """Outcome of one on-target verification run."""

    board: str
    machine: str
    inputs: int
    seed: int
    status: str                                        # "ok", "crash" or "timeout"
    detail: str
    mismatching: dict[str, int] = field(default_factory=dict)
    stack_high_water: int | None = None
    stack_estimate: int = 0

    @property
    def ok(self) -> bool:
        """True when QEMU finished and every output equals the host's bit for bit."""
        return self.status == "ok" and not any(self.mismatching.values())


def _stack_high_water(console: str) -> int | None:
    """The high-water mark the firmware printed, if it got that far."""
    for line in console.splitlines():
        if "stack high-water" in line:
            return int(line.split("high-water")[1].split()[0])
    return None


def verify_on_target(model_dir: Path, board_id: str | None, inputs: int = 5, seed: int = 0,
                     timeout_s: float = 300.0) -> OnTargetResult:
    """Run model_dir's C in QEMU on the board's core with the seeded inputs of the host verify; compare bits."""
    model_dir = Path(model_dir).resolve()
    host = load(model_dir, layer_hook=False)
    report = host.report
    board = load_board(board_id or report["board"])
    machine = board["qemu_machine"]
    rng = np.random.default_rng(seed)
    feeds = [random_feeds(report["inputs"], rng) for _ in range(inputs)]
    expected = [host.run(f) for f in feeds]
    blob = b"".join(np.ascontiguousarray(f[s["name"]]).tobytes() for f in feeds for s in report["inputs"])
    stack = report["fit"]["ram_parts"]["stack"]
    fw = build_firmware(model_dir, model_dir / "firmware-qemu", board, qemu_memory_map(machine),
                        stack + QEMU_STACK_MARGIN)
    run = run_firmware(fw.elf, machine, blob, model_dir / "firmware-qemu" / "run", timeout_s)
    result = OnTargetResult(board["id"], machine, inputs, seed, run.status, run.console.strip(),
                            stack_high_water=_stack_high_water(run.console), stack_estimate=stack)
    if run.status != "ok":
        meaning = EXIT_MEANINGS.get(run.exit_code, "QEMU failed") if run.exit_code is not None else "no exit"
        result.detail = f"{meaning} (exit {run.exit_code}): {run.console.strip()[-500:]}"
        return result
    compared = count_mismatches(report, expected, run.outputs)
    if isinstance(compared, str):
        result.status = "crash"
        result.detail = compared
        return result
    result.mismatching = compared
    return result


def count_mismatches(report: dict, expected: list[dict], blob: bytes) -> dict[str, int] | str:
    """Per output, on how many inputs the firmware's outputs.bin differs from the host's bits; or why it cannot be
    compared (wrong length)."""
    sizes = [np.dtype(o["dtype"]).itemsize * int(np.prod(o["shape"], dtype=np.int64)) for o in report["outputs"]]
    if len(blob) != sum(sizes) * len(expected):
        return f"outputs.bin has {len(blob)} bytes, expected {sum(sizes) * len(expected)}"
    mismatching = {o["name"]: 0 for o in report["outputs"]}
    pos = 0
    for want in expected:
        for o, n in zip(report["outputs"], sizes):
            mismatching[o["name"]] += blob[pos:pos + n] != np.ascontiguousarray(want[o["name"]]).tobytes()
            pos += n
    return mismatching
