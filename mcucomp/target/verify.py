"""build-target (firmware for the board's memory map, sizes vs. prediction) and on-target verification under QEMU."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..boards import load_board, region
from ..host import load
from ..verify import data_feeds, random_feeds
from .build import Firmware, build_firmware, section_sizes, symbol_address
from .memory_map import board_memory_map, qemu_memory_map
from .run import EXIT_MEANINGS, run_firmware

#: Extra stack the QEMU firmware reserves above the estimate, so a low estimate shows in the high-water mark
#: instead of corrupting the arena.
QEMU_STACK_MARGIN = 16384
FLASH_SECTIONS = (".text", ".rodata", ".ARM.exidx", ".data")
RAM_SECTIONS = (".data", ".bss", ".stack")
SHOWN_SECTIONS = (".text", ".rodata", ".data", ".bss", ".stack")


def elf_sizes(fw: Firmware) -> dict:
    """The ELF's sections and its flash and RAM totals (counting the sections of other regions, e.g. .dtcm)."""
    sections = section_sizes(fw.elf)
    ram = [*RAM_SECTIONS, *fw.memory_map.placement_sections(writable=True)]
    flash = [*FLASH_SECTIONS, *fw.memory_map.placement_sections(writable=False)]
    shown = [*SHOWN_SECTIONS, *(s for s in ram + flash if sections.get(s) and s not in SHOWN_SECTIONS)]
    return {"sections": {s: sections.get(s, 0) for s in shown},
            "flash_bytes": sum(sections.get(s, 0) for s in flash),
            "ram_bytes": sum(sections.get(s, 0) for s in ram)}


def arena_placement(fw: Firmware) -> str:
    """Where the firmware's arena landed: `dtcm @ 0x20000000`, from the ELF's symbol table."""
    address = symbol_address(fw.elf, "fw_arena")
    if address is None:
        return "not in the ELF"
    where = next((r.name for r in fw.memory_map.regions if r.base <= address < r.base + r.size), "no region")
    return f"{where} @ 0x{address:08X}"


def build_target(model_dir: Path, board_id: str | None) -> dict:
    """Link model_dir's C with the test firmware for the board's own memory map; sizes next to the prediction."""
    model_dir = Path(model_dir).resolve()
    report = json.loads((model_dir / "report.json").read_text())
    board = load_board(board_id or report["board"])
    fit = report["fit"]
    fw = build_firmware(model_dir, model_dir / "firmware", board, board_memory_map(board), fit["ram_parts"]["stack"])
    sizes = elf_sizes(fw)
    result = {"board": board["id"], "elf": str(fw.elf), "command": fw.command, **sizes,
              "arena": arena_placement(fw), "weights_region": fit["weights_region"],
              "npu_standin": bool(report.get("npu") and report["npu"]["regions"]),
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
    arena: str = ""                                    # where the arena linked (region @ address)
    data: str | None = None                            # the --data file the inputs came from (None: seeded random)
    npu_replay_bytes: int | None = None                # NPU builds: region output bytes the driver stand-in replayed

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


def host_outputs(host, feeds: list[dict]) -> tuple[list[dict], bytes | None]:
    """The host build's outputs for every input set and, for an NPU build, the bytes of every NPU region output in
    call order (the host's reference of each region; the target's driver stand-in writes them back, as QEMU has no
    Ethos-U), else None."""
    if host.npu is None:
        return [host.run(f) for f in feeds], None
    host.npu.record = []
    try:
        expected = [host.run(f) for f in feeds]
        return expected, b"".join(host.npu.record)
    finally:
        host.npu.record = None


def verify_on_target(model_dir: Path, board_id: str | None, inputs: int = 5, seed: int = 0,
                     timeout_s: float = 300.0, data=None) -> OnTargetResult:
    """Run model_dir's C in QEMU on the board's core with the seeded inputs of the host verify (or the samples of
    `data`, an .npz path or dict of arrays); compare bits."""
    model_dir = Path(model_dir).resolve()
    host = load(model_dir, layer_hook=False)
    report = host.report
    board = load_board(board_id or report["board"])
    machine = board["qemu_machine"]
    rng = np.random.default_rng(seed)
    feeds = (data_feeds(data, report) if data is not None
             else [random_feeds(report["inputs"], rng) for _ in range(inputs)])
    inputs = len(feeds)
    expected, replay = host_outputs(host, feeds)
    blob = b"".join(np.ascontiguousarray(f[s["name"]]).tobytes() for f in feeds for s in report["inputs"])
    stack = report["fit"]["ram_parts"]["stack"]
    fit = report["fit"]
    chosen = [region(board, fit[key]) for key, default in (("arena_region", board["ram_region"]),
                                                           ("weights_region", board["flash_region"]))
              if fit[key] != default]
    fw = build_firmware(model_dir, model_dir / "firmware-qemu", board, qemu_memory_map(machine, chosen),
                        stack + QEMU_STACK_MARGIN, ["-DFW_NPU_REPLAY"] if replay is not None else [])
    run_dir = model_dir / "firmware-qemu" / "run"
    if replay is not None:
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "npu_replay.bin").write_bytes(replay)
    run = run_firmware(fw.elf, machine, blob, run_dir, timeout_s)
    result = OnTargetResult(board["id"], machine, inputs, seed, run.status, run.console.strip(),
                            stack_high_water=_stack_high_water(run.console), stack_estimate=stack,
                            arena=arena_placement(fw), data=None if data is None else str(data),
                            npu_replay_bytes=None if replay is None else len(replay))
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
