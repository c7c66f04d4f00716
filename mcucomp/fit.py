"""Fit check: predicted RAM (arena + I/O buffers + stack) and flash (weights + code) against the board's regions.

Code size and stack come from mcucomp/target/code_size.json, measured once per core with arm-none-eabi-gcc -O2
(bench/measure_code_size.py), so no toolchain is needed at compile time. Everything the firmware links is placed
as its linker script does: .data/.bss/stack in the board's ram_region, code and constants in its flash_region.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from .boards import region
from .errors import FitError

#: Code and params-struct bytes the generated <name>_run spends per kernel call (calibrated on the shared models:
#: a call sequence of 5-8 instructions plus a 20-60 byte const params struct).
CALL_BYTES = 56
#: Stack frame of the generated <name>_run (it only forwards pointers; 16-40 B measured).
RUN_FRAME_BYTES = 40
#: Frames of the libgcc soft-float routines a kernel calls on cores without an FPU (QEMU high-water marks).
SOFT_FLOAT_STACK_BYTES = 64


@lru_cache(maxsize=1)
def code_size_table() -> dict:
    """The measured per-core table (mcucomp/target/code_size.json)."""
    return json.loads(resources.files("mcucomp.target").joinpath("code_size.json").read_text())


def _kernel_entries(report: dict, core: dict) -> tuple[dict, list[str]]:
    """Table entry per runtime C file the model links (kernels and the files they depend on); files missing from the
    table get the largest entry (listed)."""
    prefix = report["name"] + "_"
    model_files = {f"{report['name']}.c", f"{report['name']}_weights.c"}
    used = sorted(f[len(prefix):-2] for f in report.get("files", []) if f.endswith(".c") and f not in model_files)
    if not used:
        used = sorted({layer["op"] for layer in report["layers"] if not layer["alias"]})
    largest = {k: max(e[k] for e in core["kernels"].values()) for k in ("code", "library", "stack")}
    missing = [op for op in used if op not in core["kernels"]]
    return {op: core["kernels"].get(op, largest) for op in used}, missing


def estimate_fit(report: dict, board: dict) -> dict:
    """Predicted RAM and flash use of the model's test firmware on board, with their parts and the regions."""
    core = code_size_table()["cores"][board["core"]]
    kernels, missing = _kernel_entries(report, core)
    calls = sum(1 for layer in report["layers"] if not layer["alias"])
    io_bytes = sum(_nbytes(io) for io in report["inputs"] + report["outputs"] if io.get("arena_offset") is None)
    stack = core["firmware_stack"] + RUN_FRAME_BYTES + max((e["stack"] for e in kernels.values()), default=0)
    stack += SOFT_FLOAT_STACK_BYTES if board["fpu"] == "none" else 0
    stack = -(-stack // 8) * 8
    code = (core["firmware_flash"] + sum(e["code"] for e in kernels.values())
            + max((e["library"] for e in kernels.values()), default=0) + CALL_BYTES * calls)
    ram_region, flash_region = region(board, board["ram_region"]), region(board, board["flash_region"])
    ram_parts = {"arena": max(report["arena_bytes"], 16), "io_buffers": io_bytes, "stack": stack}
    flash_parts = {"weights": report["weights_bytes"], "code": code}
    return {
        "core": board["core"],
        "ram_region": ram_region["name"], "ram_region_bytes": ram_region["size"],
        "ram_bytes": sum(ram_parts.values()), "ram_parts": ram_parts,
        "flash_region": flash_region["name"], "flash_region_bytes": flash_region["size"],
        "flash_bytes": sum(flash_parts.values()), "flash_parts": flash_parts,
        "kernels_not_measured": missing,
        "note": "code and stack predicted from mcucomp/target/code_size.json (arm-none-eabi-gcc -O2 per core); "
                "stack = firmware frames + run frame + deepest kernel; RAM excludes other application data",
    }


def _nbytes(io: dict) -> int:
    """Bytes of one graph input/output."""
    count = 1
    for d in io["shape"]:
        count *= d
    return count * {"float32": 4, "int8": 1, "uint8": 1, "int16": 2, "int32": 4, "int64": 8, "bool": 1}[io["dtype"]]


def _largest_ram_contributors(report: dict, fit: dict) -> list[tuple[str, int]]:
    """The biggest single items in RAM: arena tensors, I/O buffers, the stack."""
    items = [(f"tensor '{t['name']}' in the arena", t["bytes"]) for t in report["tensors"] if not t.get("alias_of")]
    items += [(f"I/O buffer '{io['name']}'", _nbytes(io)) for io in report["inputs"] + report["outputs"]
              if io.get("arena_offset") is None]
    items.append(("stack (estimated)", fit["ram_parts"]["stack"]))
    return sorted(items, key=lambda kv: -kv[1])[:3]


def _largest_flash_contributors(report: dict, fit: dict) -> list[tuple[str, int]]:
    """The biggest single items in flash: each layer's constants, the code."""
    items = [(f"weights of layer '{layer['name']}' ({layer['op']})", layer["weight_bytes"])
             for layer in report["layers"]]
    items.append(("code (runtime kernels and firmware, estimated)", fit["flash_parts"]["code"]))
    return sorted(items, key=lambda kv: -kv[1])[:3]


def check_fit(report: dict, board: dict, fit: dict) -> None:
    """Raise FitError naming the overflowing region, the numbers and the three largest contributors."""
    problems = []
    for kind, contributors in (("ram", _largest_ram_contributors), ("flash", _largest_flash_contributors)):
        need, have = fit[f"{kind}_bytes"], fit[f"{kind}_region_bytes"]
        if need <= have:
            continue
        parts = " + ".join(f"{k} {v:,} B" for k, v in fit[f"{kind}_parts"].items())
        top = "; ".join(f"{name} {size:,} B" for name, size in contributors(report, fit))
        problems.append(f"{'RAM' if kind == 'ram' else 'flash'} region '{fit[f'{kind}_region']}' holds "
                        f"{have:,} B but the model needs {need:,} B ({parts}): over by {need - have:,} B. "
                        f"Largest contributors: {top}.")
    if problems:
        raise FitError(f"Model '{report['name']}' does not fit board '{board['id']}': " + " ".join(problems)
                       + " Pick a larger board with --board, shrink the model, or pass --no-fit-check to write the "
                       "C anyway.")
