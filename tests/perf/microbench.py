"""Assemble tiny Thumb sequences with arm-none-eabi-as (or compile small freestanding C functions) and run them on
the simulator core alone, counting their cycles."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from mcucomp.perf.memory import DataCache, FlashRegion
from mcucomp.perf.sim import Simulator
from mcucomp.target.build import TARGET_CFLAGS, require_tool

CODE_BASE = 0x0800_0000
RAM_BASE = 0x2000_0000
#: -mcpu per simulated core for the assembler.
AS_CPU = {"cortex-m4": ["-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16"], "cortex-m0plus": ["-mcpu=cortex-m0plus"],
          "cortex-m33": ["-mcpu=cortex-m33", "-mfpu=fpv5-sp-d16"],
          "cortex-m7": ["-mcpu=cortex-m7", "-mfpu=fpv5-sp-d16"]}


def assemble(source: str, core: str) -> tuple[bytes, int]:
    """Raw Thumb code of `source` (placed at CODE_BASE) and the offset of the label `end` appended after it."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "a.s").write_text(".syntax unified\n.thumb\n.text\n" + source + "\nend:\n    b end\n")
        subprocess.run([require_tool("arm-none-eabi-as"), *AS_CPU[core], "-o", str(tmp / "a.o"), str(tmp / "a.s")],
                       check=True, capture_output=True)
        subprocess.run([require_tool("arm-none-eabi-objcopy"), "-O", "binary", str(tmp / "a.o"), str(tmp / "a.bin")],
                       check=True, capture_output=True)
        symbols = subprocess.run([require_tool("arm-none-eabi-nm"), str(tmp / "a.o")], check=True,
                                 capture_output=True, text=True).stdout.split("\n")
        end = next(int(line.split()[0], 16) for line in symbols if line.endswith(" end"))
        return (tmp / "a.bin").read_bytes(), end


def run_snippet(source: str, core: str = "cortex-m4", wait_states: int = 0, cache: DataCache | None = None,
                registers: dict[str, int] | None = None) -> Simulator:
    """Execute source from its first instruction to the label `end` (the final `b end` is not executed).

    Code and constants sit in a 64 KB 'flash' at CODE_BASE (with wait_states on data reads), RAM at RAM_BASE;
    r0 points at 256 zeroed bytes of RAM unless registers say otherwise."""
    code, end = assemble(source, core)
    flash = [FlashRegion("flash", CODE_BASE, 0x1_0000, wait_states)] if wait_states else []
    sim = Simulator(core, [(CODE_BASE, 0x1_0000), (RAM_BASE, 0x1_0000)], flash, cache)
    sim.load_code(CODE_BASE, code)
    for name, value in {"r0": RAM_BASE, **(registers or {})}.items():
        sim.set_reg(name, value)
    sim.run(CODE_BASE, RAM_BASE + 0x1_0000, until=CODE_BASE + end, timeout_s=10)
    assert sim.error is None, sim.error
    return sim


def compile_c(source: str, core: str, include_dirs: list[Path],
              flags: tuple[str, ...] = ()) -> tuple[bytes, dict[str, int]]:
    """Raw code of a C source without main compiled with the target flags (-O2) and `flags` and linked at CODE_BASE
    (newlib for memcpy and friends), and the addresses of its functions."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "a.c").write_text(source)
        includes = [f"-I{d}" for d in include_dirs]
        build = subprocess.run([require_tool("arm-none-eabi-gcc"), *AS_CPU[core], "-mthumb", *TARGET_CFLAGS, *flags,
                                *includes, "--specs=nano.specs", "-nostartfiles", f"-Wl,-Ttext={CODE_BASE:#x}",
                                "-Wl,-e,0", "-o", str(tmp / "a.elf"), str(tmp / "a.c"), "-lc", "-lgcc"],
                               capture_output=True, text=True)
        assert build.returncode == 0, build.stderr
        subprocess.run([require_tool("arm-none-eabi-objcopy"), "-O", "binary", "-j", ".text", str(tmp / "a.elf"),
                        str(tmp / "a.bin")], check=True, capture_output=True)
        symbols = subprocess.run([require_tool("arm-none-eabi-nm"), str(tmp / "a.elf")], check=True,
                                 capture_output=True, text=True).stdout.split("\n")
        functions = {parts[2]: int(parts[0], 16) for parts in (line.split() for line in symbols)
                     if len(parts) == 3 and parts[1] in "Tt"}
        return (tmp / "a.bin").read_bytes(), functions


def call_c(code: bytes, address: int, core: str, args: list[int], ram: bytes) -> tuple[Simulator, bytes]:
    """Call the function at `address` of code (compile_c) with up to four word arguments, `ram` written at RAM_BASE
    (1 MB); the simulator (its cycle counters) and the RAM contents afterwards."""
    size = 0x10_0000
    stop = CODE_BASE + ((len(code) + 3) & ~3)
    sim = Simulator(core, [(CODE_BASE, 0x10_0000), (RAM_BASE, size)])
    sim.load_code(CODE_BASE, code)
    sim.load_code(stop, b"\xfe\xe7")  # b .
    sim.uc.mem_write(RAM_BASE, ram)
    for name, value in zip(("r0", "r1", "r2", "r3"), args):
        sim.set_reg(name, value)
    sim.set_reg("lr", stop | 1)
    sim.run(address, RAM_BASE + size, until=stop, timeout_s=120)
    assert sim.error is None, sim.error
    return sim, bytes(sim.uc.mem_read(RAM_BASE, len(ram)))
