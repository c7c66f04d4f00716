"""Cross-compile a compiled model's C files with the test firmware for a board's core (arm-none-eabi-gcc)."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import jinja2
import numpy as np

from emit_c.escape import c_environment

from ..boards import compiler_flags
from ..errors import McucompError, OutputError
from .memory_map import MemoryMap, linker_script, region_attribute, regions_header

#: Same arithmetic rules as the host build (mcucomp.host.HOST_CFLAGS): -O2, no FP contraction, no fast-math.
TARGET_CFLAGS = ["-std=c99", "-O2", "-ffp-contract=off", "-fno-fast-math", "-Wall", "-Wextra", "-Werror",
                 "-ffunction-sections", "-fdata-sections"]
LINK_FLAGS = ["-nostartfiles", "--specs=nano.specs", "-Wl,--gc-sections"]
#: newlib's libm provides fmaf (the runtime calls no transcendental libm function).
LIBS = ["-lm", "-lc", "-lgcc"]
FIRMWARE_FILES = ("fw_semihost.h", "fw_semihost.c", "fw_startup.c")
INSTALL_HINT = ("Install the Arm GNU toolchain and QEMU: apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi "
                "qemu-system-arm.")

_ENV = c_environment(jinja2.PackageLoader("mcucomp.target", "firmware"))


def require_tool(tool: str) -> str:
    """Path of an external tool, or a clear error saying how to install it."""
    path = shutil.which(tool)
    if path is None:
        raise McucompError(f"'{tool}' was not found on PATH. {INSTALL_HINT}")
    return path


def io_specs(report: dict) -> list[dict]:
    """Inputs then outputs with their firmware variable, byte size and where their buffer lives."""
    specs = []
    for kind, items in (("in", report["inputs"]), ("out", report["outputs"])):
        for i, io in enumerate(items):
            count = int(np.prod(io["shape"], dtype=np.int64))
            nbytes = count * np.dtype(io["dtype"]).itemsize
            in_arena = io.get("arena_offset") is not None
            buffer = f"fw_{kind}{i}"
            pointer = f"({io['ctype']} *)(fw_arena + {io['arena_offset']}u)" if in_arena else buffer
            specs.append({"var": f"{kind}{i}", "ctype": io["ctype"], "count": max(count, 1), "nbytes": nbytes,
                          "is_input": kind == "in", "in_arena": in_arena, "buffer": buffer, "pointer": pointer})
    return specs


def render_harness(report: dict, target: str) -> str:
    """harness.c for the model described by report (see firmware/harness.c.j2)."""
    ios = io_specs(report)
    return _ENV.get_template("harness.c.j2").render(
        name=report["name"], NAME=report["name"].upper(), target=target, ios=ios,
        buffers=[io for io in ios if not io["in_arena"]], arena_alloc=max(report["arena_bytes"], 16))


@dataclass
class Firmware:
    """A linked firmware image and where it came from."""

    elf: Path
    memory_map: MemoryMap
    stack_bytes: int
    command: list[str]


def placement_defines(report: dict, mm: MemoryMap) -> list[str]:
    """-D<NAME>_ARENA_SECTION / _WEIGHTS_SECTION putting the arena and the weights in the regions the report chose,
    for those that are board regions of mm other than its data and code regions (else they stay in .bss / .rodata;
    a QEMU machine's own region may share a board region's name, as corstone-300's `ddr` does)."""
    name, fit = report["name"].upper(), report["fit"]
    return [f"-D{name}_{what}_SECTION={region_attribute(fit[key])}"
            for what, key, default in (("ARENA", "arena_region", mm.ram), ("WEIGHTS", "weights_region", mm.code))
            if fit[key] in mm.board_regions and fit[key] != default]


def build_firmware(model_dir: Path, build_dir: Path, board: dict, mm: MemoryMap, stack_bytes: int,
                   defines: list[str] = (), extra_sources: list[Path] = ()) -> Firmware:
    """Write the firmware sources and linker script into build_dir and link fw.elf for board's core, with the arena
    and the weights in the report's regions where mm has them (extra_sources: more C files to link, e.g. the cycle
    simulator's layer markers)."""
    gcc = require_tool("arm-none-eabi-gcc")
    report = json.loads((model_dir / "report.json").read_text())
    defines = [*placement_defines(report, mm), *defines]
    try:
        build_dir.mkdir(parents=True, exist_ok=True)
        for name in FIRMWARE_FILES:
            (build_dir / name).write_text(resources.files("mcucomp.target").joinpath("firmware", name).read_text())
        (build_dir / "fw_harness.c").write_text(render_harness(report, mm.label))
        (build_dir / "fw_regions.h").write_text(regions_header(mm))
        (build_dir / "link.ld").write_text(linker_script(mm, stack_bytes))
    except OSError as exc:
        raise OutputError(f"Cannot write the firmware sources into '{build_dir}' ({exc.strerror or exc}): move "
                          "away whatever is in the way (e.g. a file named like that directory), or choose another "
                          "-o.") from None
    model_sources = [str(model_dir / f) for f in report["files"] if f.endswith(".c")]
    firmware_sources = [str(build_dir / n) for n in ("fw_harness.c", "fw_semihost.c", "fw_startup.c")]
    firmware_sources += [str(s) for s in extra_sources]
    elf = build_dir / "fw.elf"
    command = [gcc, *compiler_flags(board), *TARGET_CFLAGS, *defines, "-I", str(model_dir), "-I", str(build_dir),
               *model_sources, *firmware_sources, "-T", str(build_dir / "link.ld"), *LINK_FLAGS,
               f"-Wl,-Map={build_dir / 'fw.map'}", *LIBS, "-o", str(elf)]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise McucompError(f"arm-none-eabi-gcc failed building the firmware for {board['id']} ({mm.label}): "
                           f"{proc.stderr.strip()[:3000]}")
    return Firmware(elf, mm, stack_bytes, command)


def symbol_address(elf: Path, symbol: str) -> int | None:
    """The address of symbol in elf (`arm-none-eabi-nm`), or None when it is not there."""
    nm = require_tool("arm-none-eabi-nm")
    proc = subprocess.run([nm, str(elf)], capture_output=True, text=True, check=True)
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == symbol:
            return int(parts[0], 16)
    return None


def section_sizes(elf: Path) -> dict[str, int]:
    """Section name → bytes, from `arm-none-eabi-size -A`."""
    size = require_tool("arm-none-eabi-size")
    proc = subprocess.run([size, "-A", str(elf)], capture_output=True, text=True, check=True)
    sizes = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].startswith(".") and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return sizes
