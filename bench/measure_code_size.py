"""Measure each runtime kernel's code size and stack depth per Cortex-M core with arm-none-eabi-gcc -O2, and the
fixed cost of the test firmware; write mcucomp/target/code_size.json (used by mcucomp.fit to predict flash and stack
without a toolchain).

Run after adding or changing a kernel:  python bench/measure_code_size.py
A kernel's "code" is its object's .text and .rodata; its "library" is how much more a linked firmware image grows
when the kernel is linked in (the libgcc / newlib routines it pulls in: soft float on ARMv6-M); its "stack" is the
deepest call chain from its entry functions through its own, the runtime files' and the library's functions
(mcucomp/target/callgraph.py: GCC's -fcallgraph-info=su graphs joined with the linked image's disassembly); a kernel
with several paths has a file, and so a figure, per path (conv2d_s8_pointwise, ...). "firmware_stack" is the
test firmware's frames under the model's run function (reset handler and main), "firmware_calls_stack" the deepest
chain of the firmware's own calls (semihosting, the stack report).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

from mcucomp.boards import compiler_flags, load_board
from mcucomp.pipeline import default_float_mac
from mcucomp.target.build import TARGET_CFLAGS, build_firmware, require_tool, section_sizes
from mcucomp.target.callgraph import StackGraph, disassembled_functions, merge, read_callgraph_info
from mcucomp.target.memory_map import qemu_memory_map

#: One representative board per core: its flags select the instruction set and FPU.
CORE_BOARDS = {"cortex-m0plus": "nucleo-g0b1re", "cortex-m4": "nucleo-l4r5zi", "cortex-m7": "nucleo-h743zi",
               "cortex-m33": "nucleo-u575zi", "cortex-m55": "corstone-300"}
#: GCC writes each function's frame and callees (FILE.ci) next to the object.
CALLGRAPH_FLAG = "-fcallgraph-info=su"
#: Functions that call themselves, with the most of their frames on the stack at once and why.
RECURSION_BOUNDS = {"mcu_gs_interp": 3}  # grid_sample_f32.c: one level per spatial dim, MCU_GS_MAX_DIMS
OUT = Path(__file__).resolve().parents[1] / "mcucomp" / "target" / "code_size.json"
#: A model with one input and one output in the arena and a run function that only copies: the firmware alone.
STUB_H = "#include <stdint.h>\n#define STUB_ARENA_SIZE 32\n#define STUB_OK 0\nint stub_run(const float *in0, float *out0, void *arena);\n"
STUB_C = ('#include "stub.h"\n#include <string.h>\n'
          "int stub_run(const float *in0, float *out0, void *arena)\n"
          "{\n    memcpy(arena, in0, 4u);\n    memcpy(out0, arena, 4u);\n    return STUB_OK;\n}\n")
STUB_REPORT = {"name": "stub", "arena_bytes": 32, "files": ["stub.c", "stub.h"],
               "inputs": [{"name": "x", "shape": [1], "dtype": "float32", "ctype": "float", "arena_offset": 0}],
               "outputs": [{"name": "y", "shape": [1], "dtype": "float32", "ctype": "float", "arena_offset": 16}],
               "fit": {"arena_region": "", "weights_region": ""}}  # no region: the arena in .bss, weights in .rodata


def flash_of(sizes: dict[str, int]) -> int:
    """Bytes an image occupies in flash: code, constants, exception index and .data's initial values."""
    return sum(sizes.get(s, 0) for s in (".text", ".rodata", ".ARM.exidx", ".data"))


def code_bytes(obj: Path) -> int:
    """Code and constant bytes of an object file (its .text* and .rodata* sections)."""
    return sum(size for name, size in section_sizes(obj).items() if name.startswith((".text", ".rodata")))


def defined_functions(obj: Path) -> list[str]:
    """Global functions an object file defines."""
    nm = require_tool("arm-none-eabi-nm")
    out = subprocess.run([nm, "-g", "--defined-only", str(obj)], capture_output=True, text=True, check=True).stdout
    return [parts[2] for parts in (line.split() for line in out.splitlines()) if len(parts) == 3 and parts[1] == "T"]


def runtime_dependencies(src: Path) -> list[str]:
    """Other runtime kernel files a kernel source reaches through its quoted includes (their .c must be linked)."""
    seen: set[str] = {src.stem}
    todo = [src, src.with_suffix(".h")]
    while todo:
        for line in todo.pop().read_text().splitlines():
            if line.startswith('#include "') and line.endswith('.h"'):
                stem = line.split('"')[1][:-2]
                header = src.parent / f"{stem}.h"
                if stem not in seen and header.exists():
                    seen.add(stem)
                    todo.append(header)
                    if (src.parent / f"{stem}.c").exists():
                        todo.append(src.parent / f"{stem}.c")
    return sorted(s for s in seen - {src.stem} if (src.parent / f"{s}.c").exists())


def driver_symbols(obj: Path) -> list[str]:
    """Arm Ethos-U driver functions an object file calls (ethosu_region): the application links that driver, so the
    measuring firmware resolves them to address 0 and its size is not counted."""
    nm = require_tool("arm-none-eabi-nm")
    proc = subprocess.run([nm, "-u", str(obj)], capture_output=True, text=True, check=True)
    return [line.split()[-1] for line in proc.stdout.splitlines() if line.split()[-1].startswith("ethosu_")]


def measure_core(core: str, board: dict, work: Path) -> dict:
    """Firmware base size and stack, and every kernel's size and stack, for one core."""
    gcc = require_tool("arm-none-eabi-gcc")
    stub = work / "stub"
    stub.mkdir(parents=True)
    (stub / "stub.h").write_text(STUB_H)
    (stub / "stub.c").write_text(STUB_C)
    mm = qemu_memory_map(board["qemu_machine"])
    # arena and weights in the machine's default RAM and code regions (no placement defines)
    (stub / "report.json").write_text(json.dumps({**STUB_REPORT, "fit": {"arena_region": mm.ram,
                                                                         "weights_region": mm.code}}))
    base = build_firmware(stub, work / "base", board, mm, 1024, [CALLGRAPH_FLAG])
    base_flash = flash_of(section_sizes(base.elf))
    firmware = merge(disassembled_functions(base.elf), *map(read_callgraph_info, (work / "base").glob("*.ci")))
    # During an inference the stack holds the reset handler's and main's frames; the model's run function and the
    # kernel come on top (mcucomp.fit adds those). Between inferences main's own calls (semihosting) go as deep as
    # firmware_calls_stack.
    under_run = sum(map(StackGraph(firmware).frame, ("fw_reset", "main")))
    harness_calls = StackGraph(firmware, frozenset({"stub_run"})).depth("fw_reset")
    runtime = resources.files("runtime_c")
    sources = sorted(Path(str(runtime)).joinpath("kernels").glob("*.c"))
    objects = {}
    form = f"-DMCU_F32_FUSED={int(default_float_mac(board) == 'fused')}"  # the core's float form, as compiles emit it
    for src in sources:
        objects[src.stem] = work / f"{src.stem}.o"
        subprocess.run([gcc, *compiler_flags(board), *TARGET_CFLAGS, form, CALLGRAPH_FLAG, "-I", str(runtime),
                        "-I", str(src.parent), "-c", str(src), "-o", str(objects[src.stem])], check=True)
    kernels = {}
    for src in sources:
        obj = objects[src.stem]
        deps = [objects[d] for d in runtime_dependencies(src) if d in objects]
        keep = [f"-Wl,--undefined={f}" for f in defined_functions(obj)]
        keep += [f"-Wl,--defsym={f}=0" for f in driver_symbols(obj)]
        fw = build_firmware(stub, work / src.stem, board, mm, 1024, [str(obj), *map(str, deps), *keep])
        own = code_bytes(obj)
        # the files it depends on are counted under their own entries (mcucomp.fit sums every linked file)
        library = max(0, flash_of(section_sizes(fw.elf)) - base_flash - own - sum(code_bytes(d) for d in deps))
        graph = StackGraph(merge(disassembled_functions(fw.elf),
                                 *(read_callgraph_info(o.with_suffix(".ci")) for o in [obj, *deps])),
                           recursion=RECURSION_BOUNDS)
        entries = defined_functions(obj)
        kernels[src.stem] = {"code": own, "library": library, "stack": max(map(graph.depth, entries), default=0)}
    return {"firmware_flash": base_flash, "firmware_stack": under_run, "firmware_calls_stack": harness_calls,
            "kernels": kernels}


def main() -> int:
    """Measure every core and write the table."""
    gcc = require_tool("arm-none-eabi-gcc")
    version = subprocess.run([gcc, "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    table = {"toolchain": version, "flags": TARGET_CFLAGS, "command": "python bench/measure_code_size.py",
             "cores": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for core, board_id in CORE_BOARDS.items():
            table["cores"][core] = measure_core(core, load_board(board_id), Path(tmp) / core)
            print(f"{core}: firmware {table['cores'][core]['firmware_flash']} B, "
                  f"{len(table['cores'][core]['kernels'])} kernels", file=sys.stderr)
    OUT.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
